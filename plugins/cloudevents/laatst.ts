import type { Knex } from 'knex';
import { DEFERRED_WRITE, type Migration, type SetupApi } from '../../src/plugin-api.js';

/**
 * The zaak's `laatstGeopend` (when a portal showed it to its initiator; set by a client) and
 * `laatstGemuteerd` (when a `zaak-gemuteerd` trigger last changed it; read-only), as Open Zaak has them.
 * The columns are always added, so turning the option on needs no migration.
 */
export const LAATST_MIGRATION: Migration = {
  name: 'cloudevents/001_zaak_laatst_geopend_gemuteerd',
  async up(knex: Knex) {
    await knex.schema.alterTable('zaak', (table) => {
      table.timestamp('laatst_geopend', { useTz: true }).nullable();
      table.timestamp('laatst_gemuteerd', { useTz: true }).nullable();
    });
  },
};

const WRITES = ['zaak_create', 'zaak_update', 'zaak_partial_update'] as const;

/** Accepts `laatstGeopend` in the zaak's writes and documents both fields in the Zaak schema. */
export function addLaatstFields(api: SetupApi): void {
  const geopend = { type: 'string', format: 'date-time', nullable: true, description: 'Wanneer de zaak het laatst is geopend (bekeken) door de initiator, bijvoorbeeld in een portaal. Een PATCH met alleen dit veld geeft het event zaak-geopend.' };
  for (const id of WRITES) api.addBodyProperty(id, 'laatstGeopend', geopend);
  api.addOpenApi({
    components: {
      schemas: {
        Zaak: {
          properties: {
            laatstGemuteerd: { type: 'string', format: 'date-time', nullable: true, readOnly: true, description: 'Wanneer de zaak het laatst is gemuteerd (het tijdstip van de transactie van het laatste zaak-gemuteerd-event).' },
          },
        },
      },
    },
  });
}

const iso = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string | Date).toISOString());

/** Sets both fields on the zaken of an answer: one query. */
export async function representLaatst(db: Knex | Knex.Transaction, zaken: Record<string, unknown>[]): Promise<void> {
  if (!zaken.length) return;
  const rows = (await db('zaak').whereIn('uuid', zaken.map((zaak) => String(zaak.uuid))).select('uuid', 'laatst_geopend', 'laatst_gemuteerd')) as { uuid: string; laatst_geopend: unknown; laatst_gemuteerd: unknown }[];
  const byUuid = new Map(rows.map((row) => [row.uuid, row]));
  for (const zaak of zaken) {
    const row = byUuid.get(String(zaak.uuid));
    zaak.laatstGeopend = iso(row?.laatst_geopend);
    zaak.laatstGemuteerd = iso(row?.laatst_gemuteerd);
  }
}

// Both travel with the transaction's next statement (`DEFERRED_WRITE`): no round trip of their own.
// The zaak's row is locked by the write already, and any read of it in the transaction comes after them.

/** Stores a `laatstGeopend` a client sent. */
export async function storeLaatstGeopend(tx: Knex.Transaction, zaakUuid: string, value: unknown): Promise<void> {
  await tx('zaak').where({ uuid: zaakUuid }).update({ laatst_geopend: value ?? null }).options(DEFERRED_WRITE);
}

/** `laatstGemuteerd` becomes the transaction's time (`now()`), as each zaak-gemuteerd trigger has it. */
export async function touchLaatstGemuteerd(tx: Knex.Transaction, zaakUuid: string): Promise<void> {
  await tx('zaak').where({ uuid: zaakUuid }).update({ laatst_gemuteerd: tx.fn.now() }).options(DEFERRED_WRITE);
}
