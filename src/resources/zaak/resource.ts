import type { CoreOperation } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import type { RequestContext, ZaakScope } from '../../plugin.js';
import { ProblemError, invalidParam, validationError } from '../../problem.js';
import { requestSchema } from '../../schema/validate.js';
import { geometryErrors } from '../shared/geometry.js';
import { paginatedSchema, paginationParameters } from '../shared/pagination.js';
import { zaakFilters, zaakSearchFilters } from './filters.js';
import { RenderingCache, handOut } from '../../http/prerendered.js';
import type { AnnounceChange } from '../audittrail/record.js';
import { IdentificatieReserve } from './identificaties.js';
import { localZaakUuid } from '../shared/references.js';
import type { AccessSubject } from '../shared/access.js';
import type { ZaakRow } from './columns.js';

import { findZaakByUuid } from './repository.js';
import { heldRow } from './held-rows.js';
import { insertZaak, insertZaakAhead, updateZaak } from './writes.js';
import { zaakSchema } from './schema.js';
import { listPage, orderingParameter, searchSchema } from './list.js';
import { loadCurrent, loadForRead, loadedRenderings, loadedRows } from './loading.js';
import { RENDERED_ZAKEN, ZaakIds, renderedZaken, type Rendered } from './rendered.js';
import { hoofdzaakColumn, loadSubject, lockZaken, lockedRows, prepareData, written, zaakAfterWrite } from './write-steps.js';

const TAG = ['zaken'];
const ref = { $ref: '#/components/schemas/Zaak' };
const createSchema = requestSchema(zaakSchema);
const patchSchema = requestSchema(zaakSchema, { partial: true });

/**
 * The schemas the Zaak operations refer to, for the served OpenAPI document. `PatchedZaak` is the Zaak
 * with nothing required, read-only fields included, as in the contract: a client ignores those in a
 * request, as the registry does (`patchSchema` validates).
 */
const { required: _required, ...documentedPatchSchema } = zaakSchema;
export const zaakOpenApi: OpenApiFragment = {
  components: { schemas: { Zaak: zaakSchema, PatchedZaak: documentedPatchSchema, ZaakZoek: searchSchema } },
};

/** Runs the plugins' `representZaken` hooks; a promise only when one returned one. */
export type RepresentZaken = (zaken: Record<string, unknown>[], scope: ZaakScope) => Promise<unknown> | undefined;

/**
 * The Zaak resource: /zaken, /zaken/{uuid} and /zaken/_zoek, as in the Zaken API contract. Changes are
 * announced with `announce`; `announceRemoval` announces what destroying a zaak takes with it; every
 * answer's zaken are shaped with `representZaken`.
 */
export function zaakOperations(
  announce: AnnounceChange,
  announceRemoval: (ctx: RequestContext, zaak: ZaakRow) => Promise<void>,
  representZaken: RepresentZaken,
): CoreOperation[] {
  const rendered: Rendered = { renderings: new RenderingCache(RENDERED_ZAKEN), ids: new ZaakIds(RENDERED_ZAKEN) };
  // The zaken of an answer (a page's items, or the zaak itself), shaped by the plugins after the work.
  const represent = (ctx: RequestContext) => {
    const body = ctx.response.body as { results?: unknown } | undefined;
    if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
    return representZaken((Array.isArray(body.results) ? body.results : [body]) as Record<string, unknown>[], ctx) as Promise<void> | undefined;
  };
  const identificaties = new IdentificatieReserve();
  return [
    {
      id: 'zaak_list',
      method: 'get',
      path: '/zaken',
      resource: 'zaak',
      action: 'list',
      write: false,
      scopes: ['zaken.lezen'],
      queryParameters: [...zaakFilters, orderingParameter, ...paginationParameters],
      execute: (ctx) => listPage(ctx, rendered, zaakFilters, ctx.query),
      represent,
      openapi: { summary: 'Alle ZAAKen opvragen.', tags: TAG, successStatus: 200, responseSchema: paginatedSchema(ref) },
    },
    {
      id: 'zaak_create',
      method: 'post',
      path: '/zaken',
      resource: 'zaak',
      action: 'create',
      write: true,
      scopes: ['zaken.aanmaken'],
      accessSubjects: (ctx) => [zaakAfterWrite(ctx)],
      requestBody: createSchema,
      load: (ctx) => loadSubject(ctx, true),
      prepare: (ctx) => prepareData(ctx, true),
      lock: lockZaken,
      async execute(ctx) {
        const hoofdzaak = ctx.data!.hoofdzaak ? localZaakUuid(ctx.baseUrl, String(ctx.data!.hoofdzaak)) : null;
        const data = { ...ctx.data!, ...(await hoofdzaakColumn(ctx)) };
        if (ctx.data!.identificatie) identificaties.taken(String(ctx.data!.identificatie));
        const ahead = await insertZaakAhead(ctx.tx!, data, hoofdzaak ?? null, identificaties);
        if (ahead) await written(ctx, ahead.row, 201, announce, ahead.id);
        else await written(ctx, await insertZaak(ctx.tx!, data, hoofdzaak ?? null), 201, announce);
        ctx.response.headers.location = String(ctx.result!.url);
      },
      represent,
      openapi: {
        summary: 'Maak een ZAAK aan.',
        description: 'Zonder identificatie wordt er een gegenereerd, uniek binnen de bronorganisatie.',
        tags: TAG,
        successStatus: 201,
        responseSchema: ref,
        requestSchema: ref,
        successHeaders: { Location: { description: 'URL waar de resource leeft.', schema: { type: 'string', format: 'uri' } } },
      },
    },
    {
      id: 'zaak__zoek',
      method: 'post',
      path: '/zaken/_zoek',
      resource: 'zaak',
      action: 'search',
      write: false,
      scopes: ['zaken.lezen'],
      queryParameters: paginationParameters,
      requestBody: searchSchema,
      async prepare(ctx) {
        // Plugins may add properties (`expand`): the operation's schema, not the core's list, decides.
        const known = ctx.operation.requestBody!.properties as Record<string, unknown>;
        const unknown = Object.keys(ctx.req.body ?? {}).filter((key) => !(key in known));
        if (unknown.length) {
          throw invalidParam('nonFieldErrors', 'unknown-parameters', `Onbekende zoekparameters: ${unknown.join(', ')}`);
        }
        const within = (ctx.body?.zaakgeometrie as { within?: Record<string, unknown> } | undefined)?.within;
        if (within) {
          const errors = geometryErrors(within, 'zaakgeometrie.within');
          if (errors.length) throw validationError(errors);
        }
      },
      execute: (ctx) => listPage(ctx, rendered, [...zaakFilters, ...zaakSearchFilters], ctx.body ?? {}),
      represent,
      openapi: {
        summary: 'Voer een (geo)-zoekopdracht uit op ZAAKen.',
        tags: TAG,
        successStatus: 200,
        responseSchema: paginatedSchema(ref),
        requestSchema: { $ref: '#/components/schemas/ZaakZoek' },
      },
    },
    {
      id: 'zaak_retrieve',
      method: 'get',
      path: '/zaken/{uuid}',
      resource: 'zaak',
      action: 'retrieve',
      write: false,
      scopes: ['zaken.lezen'],
      load: (ctx) => loadForRead(ctx, rendered),
      async execute(ctx) {
        const held = loadedRenderings.get(ctx);
        const row = loadedRows.get(ctx)!;
        const [zaak] = held ? [handOut(held)] : await renderedZaken(ctx.db, rendered, ctx, [row], [row]);
        if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
        ctx.current = zaak;
        ctx.response.body = zaak;
      },
      represent,
      openapi: { summary: 'Een specifieke ZAAK opvragen.', tags: TAG, successStatus: 200, responseSchema: ref },
    },
    ...(['update', 'partial_update'] as const).map(
      (action): CoreOperation => ({
        id: `zaak_${action}`,
        method: action === 'update' ? 'put' : 'patch',
        path: '/zaken/{uuid}',
        resource: 'zaak',
        action,
        write: true,
        scopes: ['zaken.bijwerken', 'zaken.geforceerd-bijwerken'],
        // Allowed on the zaak as it is and as it will be: no moving a zaak out of one's reach.
        accessSubjects: (ctx) => [ctx.zaak as unknown as AccessSubject, zaakAfterWrite(ctx)],
        requestBody: action === 'update' ? createSchema : patchSchema,
        async load(ctx) {
          await loadCurrent(ctx);
          await loadSubject(ctx, false);
        },
        prepare: (ctx) => prepareData(ctx, false),
        // Locked, concurrent updates of one zaak apply one after the other.
        lock: lockZaken,
        async execute(ctx) {
          if (ctx.data!.identificatie) identificaties.taken(String(ctx.data!.identificatie));
          const data = { ...ctx.data!, ...(await hoofdzaakColumn(ctx)) };
          const { id, uuid } = lockedRows.get(ctx)!;
          // The zaak as locked with its relations, unless a statement since may have changed them (a plugin's hook): then read back.
          const told = await updateZaak(ctx.tx!, id, data, heldRow(ctx.tx!, uuid, true));
          const updated = told ?? (await findZaakByUuid(ctx.tx!, uuid, { relations: true }))!;
          await written(ctx, updated, 200, announce);
        },
        represent,
        openapi: {
          summary: action === 'update' ? 'Werk een ZAAK in zijn geheel bij.' : 'Werk een ZAAK deels bij.',
          tags: TAG,
          successStatus: 200,
          responseSchema: ref,
          requestSchema: action === 'update' ? ref : { $ref: '#/components/schemas/PatchedZaak' },
        },
      }),
    ),
    {
      id: 'zaak_destroy',
      method: 'delete',
      path: '/zaken/{uuid}',
      resource: 'zaak',
      action: 'destroy',
      write: true,
      scopes: ['zaken.verwijderen'],
      load: async (ctx) => void (await loadCurrent(ctx)),
      lock: lockZaken,
      async execute(ctx) {
        const row = lockedRows.get(ctx)!;
        ctx.response.status = 204;
        await announceRemoval(ctx, row);
        // Deelzaken, rollen and the other related records go with it (ON DELETE CASCADE): zrc-023.
        await ctx.tx!('zaak').where({ id: row.id }).delete();
      },
      openapi: { summary: 'Verwijder een ZAAK.', tags: TAG, successStatus: 204 },
    },
  ];
}
