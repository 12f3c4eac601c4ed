import { PLUGIN_API_VERSION, ProblemError, invalidParam, type Plugin, type RegistryServices, type RequestContext } from 'zaakregister';

export interface BetrokkeneOptions {
  /** The `betrokkeneType` a zaak needs before it gets a status, e.g. `natuurlijk_persoon`. */
  betrokkeneType: string;
}

/** The rollen of the zaak with this betrokkeneType, as clients see them. */
async function betrokkenenOf(ctx: RequestContext, zaakUrl: string, betrokkeneType: string): Promise<Record<string, unknown>[]> {
  const rollen = await ctx.registry.zaken.records(ctx, 'rol', zaakUrl);
  return rollen.filter((rol) => rol.betrokkeneType === betrokkeneType);
}

/**
 * A zaak gets a status only when it has a betrokkene (a rol) of `betrokkeneType`; and
 * `GET /zaken/{uuid}/betrokkenen` lists those betrokkenen, for clients allowed to read the zaak.
 */
export function betrokkeneVerplicht(options: BetrokkeneOptions): Plugin {
  const { betrokkeneType } = options;
  let registry: RegistryServices;
  return {
    name: 'betrokkene-verplicht',
    // The plugin API this plugin is written against: an older zaakregister refuses to load it.
    apiVersion: PLUGIN_API_VERSION,

    setup(api) {
      registry = api.registry;
      // The field every zaak gets (below), in the served OpenAPI document.
      api.addOpenApi({
        components: { schemas: { Zaak: { properties: { aantalBetrokkenen: { type: 'integer', readOnly: true, description: `Het aantal betrokkenen (${betrokkeneType}).` } } } } },
      });
      api.defineProblem('betrokkene-required', 400, 'De zaak heeft geen betrokkene van het vereiste type.');
      api.addOperation({
        id: 'zaak_betrokkenen',
        method: 'get',
        path: '/zaken/{zaak_uuid}/betrokkenen',
        resource: 'rol',
        action: 'list',
        write: false,
        scopes: ['zaken.lezen'],
        // What authorization decides on: the zaak, found before the scope check.
        async load(ctx) {
          const zaak = await ctx.registry.zaken.find(ctx, ctx.params.zaak_uuid);
          if (!zaak) throw new ProblemError('not_found', { detail: 'Deze zaak bestaat niet.' });
          ctx.zaak = zaak;
        },
        async execute(ctx) {
          const results = await betrokkenenOf(ctx, ctx.zaak!.url as string, betrokkeneType);
          ctx.response.body = { count: results.length, results };
        },
        openapi: {
          summary: `De betrokkenen (${betrokkeneType}) van een zaak.`,
          tags: ['zaken'],
          successStatus: 200,
          responseSchema: { type: 'object', properties: { count: { type: 'integer' }, results: { type: 'array', items: { $ref: '#/components/schemas/Rol' } } } },
        },
      });
      api.addOperation({
        id: 'zaakstatistiek_retrieve',
        method: 'get',
        path: '/zaakstatistiek',
        action: 'retrieve',
        write: false,
        // No zaak to decide on: the core checks the scope for some zaaktype, the query does the rest.
        scopes: ['zaken.lezen'],
        async execute(ctx) {
          const query = ctx.registry.storage.knex('zaak').select('zaak.zaaktype').count({ aantal: '*' }).groupBy('zaak.zaaktype').orderBy('zaak.zaaktype');
          // Only the zaken this client may read: its zaaktypen, up to their vertrouwelijkheidaanduiding.
          const rows = (await ctx.registry.zaken.limitToAccess(ctx, query)) as { zaaktype: string; aantal: string | number }[];
          ctx.response.body = { perZaaktype: rows.map((row) => ({ zaaktype: row.zaaktype, aantal: Number(row.aantal) })) };
        },
        openapi: {
          summary: 'Het aantal zaken per zaaktype dat de client mag zien.',
          tags: ['zaken'],
          successStatus: 200,
          responseSchema: {
            type: 'object',
            properties: { perZaaktype: { type: 'array', items: { type: 'object', properties: { zaaktype: { type: 'string', format: 'uri' }, aantal: { type: 'integer' } } } } },
          },
        },
      });
    },

    // Every zaak the registry gives (a detail, list and _zoek items, write answers, the zaken expand
    // embeds) comes through here: one query for all of an answer's zaken. Rollen change the zaak's
    // revision, so answers remembered per revision (ETag, 304) stay right.
    async representZaken(zaken, scope) {
      const rows = (await (scope.tx ?? registry.storage.knex)('rol')
        .join('zaak', 'zaak.id', 'rol.zaak_id')
        .whereIn('zaak.uuid', zaken.map((zaak) => String(zaak.uuid)))
        .where('rol.betrokkene_type', betrokkeneType)
        .groupBy('zaak.uuid')
        .select('zaak.uuid')
        .count({ aantal: '*' })) as { uuid: string; aantal: string | number }[];
      const counts = new Map(rows.map((row) => [row.uuid, Number(row.aantal)]));
      for (const zaak of zaken) zaak.aantalBetrokkenen = counts.get(String(zaak.uuid)) ?? 0;
    },

    // Only for new statussen: an operation id the registry does not serve is refused at start.
    validate: {
      operations: ['status_create'],
      async handler(ctx) {
        if (typeof ctx.data?.zaak !== 'string') return;
        if ((await betrokkenenOf(ctx, ctx.data.zaak, betrokkeneType)).length === 0) {
          throw invalidParam('zaak', 'betrokkene-required', `Een zaak krijgt pas een status met een betrokkene van het type ${betrokkeneType}.`);
        }
      },
    },
  };
}
