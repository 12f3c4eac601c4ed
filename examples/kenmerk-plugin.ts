import type { Plugin, RegistryServices } from 'zaakregister';

const FIELD = 'internKenmerk';
const WRITES = ['zaak_create', 'zaak_update', 'zaak_partial_update'] as const;

/**
 * A field of a plugin's own on every zaak, end to end: a column (migration), accepted in the zaak's
 * writes (body property, documented in the Zaak schema), stored in the write's transaction
 * (`afterWrite`), shown wherever a zaak appears (`representZaken`) and a filter of the zaak list
 * (query parameter). `docs/plugins.md` walks through it.
 */
export function internKenmerk(): Plugin {
  let registry: RegistryServices;
  return {
    name: 'kenmerk',
    setup(api) {
      registry = api.registry;
      // 1. The column: a migration named under the plugin's name, applied after the core's.
      api.addMigrations([
        {
          name: 'kenmerk/001_zaak_intern_kenmerk',
          up: async (knex) => void (await knex.schema.alterTable('zaak', (t) => t.string('intern_kenmerk', 40).nullable().index())),
        },
      ]);
      // 2. Accepted in the zaak's writes: validated, and documented in the Zaak schema the bodies refer to.
      for (const id of WRITES) api.addBodyProperty(id, FIELD, { type: 'string', maxLength: 40, nullable: true, description: 'Een kenmerk voor intern gebruik.' });
      // 4. A filter of GET /zaken (validated, documented; authorization still applies).
      api.addQueryParameter('zaak_list', {
        name: FIELD,
        description: 'Zaken met dit interne kenmerk.',
        schema: { type: 'string' },
        filter: (query, value) => void query.where('zaak.intern_kenmerk', value as string),
      });
    },

    // 3. Stored in the write's transaction, once the zaak exists; the zaak's revision changes with it.
    afterWrite: {
      operations: WRITES,
      async handler(ctx) {
        if (!ctx.body || !(FIELD in ctx.body)) return;
        await ctx.tx!('zaak').where({ uuid: ctx.result!.uuid }).update({ intern_kenmerk: ctx.body[FIELD] ?? null });
      },
    },

    // 5. Shown on every zaak of every answer (detail, list and _zoek items, writes, expanded zaken): one query.
    async representZaken(zaken, scope) {
      const rows = (await (scope.tx ?? registry.storage.knex)('zaak')
        .whereIn('uuid', zaken.map((zaak) => String(zaak.uuid)))
        .select('uuid', 'intern_kenmerk')) as { uuid: string; intern_kenmerk: string | null }[];
      const kenmerken = new Map(rows.map((row) => [row.uuid, row.intern_kenmerk]));
      for (const zaak of zaken) zaak[FIELD] = kenmerken.get(String(zaak.uuid)) ?? null;
    },
  };
}
