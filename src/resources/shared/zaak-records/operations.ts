import type { Knex } from 'knex';
import type { Operation } from '../../../operation.js';
import type { Principal } from '../../../plugin.js';
import { ProblemError, validationError } from '../../../problem.js';
import { COUNTED_RECORD_TABLES } from '../../../storage/migrations/018-record-count.js';
import { requestOrigin } from '../../audittrail/record.js';
import { zaakSummary } from '../../zaak/representation.js';
import { findZaakByUuid } from '../../zaak/repository.js';
import { restrictToAuthorized } from '../access.js';
import { PAGE_SIZE, limitToPage, paginated, paginatedSchema, paginationParameters, pageOf } from '../pagination.js';
import { directRows } from '../../../storage/named-statement.js';
import { PREPARED_PAGE } from '../../../storage/statement-batching.js';
import type { RecordAction, RecordRow } from './definition.js';
import { zaakFilter } from './filters.js';
import type { RecordKind } from './kind.js';
import { requestState, type RequestSteps } from './request-steps.js';
import type { RecordWrites } from './writes.js';

/** The names the contract gives retrieve and destroy where they are not `retrieve` and `destroy` (ZaakNotitie). */
const CONTRACT_NAMES: Partial<Record<RecordAction, RecordAction>> = { retrieve: 'read', destroy: 'delete' };

/**
 * The exact count of a list: of `filtered`, the records joined with their zaken, when a filter applies
 * (the filters' indexes answer it); otherwise a sum over the counter rows the triggers keep
 * (`core/018_record_count`), restricted to what the principal may read as `zaak_count` is. Counting
 * the join instead took 2–4 s at 1M statussen, for any application.
 */
async function countQuery(db: Knex, table: string, filtered: Knex.QueryBuilder | undefined, principal: Principal | undefined): Promise<number> {
  if (filtered) return filtered.clone().count({ count: '*' }).then(([r]) => Number(r.count));
  const counters = db('record_count as zaak').where('zaak.kind', table);
  restrictToAuthorized(counters, principal, undefined, undefined, { literal: true });
  const [row] = await directRows<{ count: string }>(db, counters.select(db.raw('coalesce(sum(n), 0)::bigint as count')), PREPARED_PAGE);
  return Number(row.count);
}

/** The operations the contract lists for a record kind: list, create, retrieve, update and destroy. */
export function recordOperations(kind: RecordKind, steps: RequestSteps, writes: RecordWrites): Operation[] {
  const { def, nested, zaakField, bodySchema, patchSchema, select, render } = kind;
  const { loadCurrent, locate, recordErrors, prepareWrite, lockZaken, lockedRecordOf, accessSubjects } = steps;
  const { insertRecord, updateRecord, deleteRecord } = writes;
  const ref = { $ref: `#/components/schemas/${def.component}` };
  const requestRef = { $ref: `#/components/schemas/${def.requestComponent ?? def.component}` };
  const patchRef = { $ref: `#/components/schemas/Patched${def.requestComponent ?? def.component}` };
  const detailPath = `${def.path}/{uuid}`;
  const read = { write: false, resource: def.name, scopes: def.scopes.read } as const;
  const operations: Operation[] = [];
  const has = (action: RecordAction) => def.actions.includes(action);
  /** The name the record serves an action under (its operationId's suffix), or undefined when it does not serve it. */
  const servedAs = (action: RecordAction) => [action, CONTRACT_NAMES[action]].find((name) => name !== undefined && has(name));
  const retrieveName = servedAs('retrieve');
  const destroyName = servedAs('destroy');
  const filters = [...(nested ? [] : [zaakFilter(zaakField)]), ...(def.filters ?? [])];

  if (has('list')) {
    operations.push({
      ...read,
      id: `${def.name}_list`,
      method: 'get',
      path: def.path,
      action: 'list',
      queryParameters: [...filters, ...(def.paginated ? paginationParameters : [])],
      async load(ctx) {
        if (!nested) return;
        const zaak = await findZaakByUuid(ctx.db, ctx.params.zaak_uuid);
        if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
        ctx.zaak = zaakSummary(zaak, ctx.baseUrl);
      },
      async execute(ctx) {
        const db = ctx.db;
        const base = db(def.table).join('zaak', 'zaak.id', `${def.table}.zaak_id`);
        if (nested) base.where('zaak.uuid', ctx.params.zaak_uuid);
        for (const filter of filters) if (ctx.query[filter.name] !== undefined) filter.apply(base, ctx.query[filter.name], ctx);
        const counted = COUNTED_RECORD_TABLES.includes(def.table) && !nested && filters.every((filter) => ctx.query[filter.name] === undefined);
        // A page filtered by authorization alone has a few texts per application, each named and
        // planned once per connection, its zaaktypen written in (see `restrictToAuthorized`).
        restrictToAuthorized(base, ctx.principal, undefined, undefined, { literal: counted });
        const page = def.paginated ? pageOf(ctx) : undefined;
        const rowsQuery = select(db).whereIn(`${def.table}.id`, base.clone().select(`${def.table}.id`)).orderBy(`${def.table}.id`);
        if (page) limitToPage(rowsQuery, page, counted && page.size === PAGE_SIZE);
        const [rows, count] = await Promise.all([
          counted ? directRows<RecordRow>(db, rowsQuery, PREPARED_PAGE) : (rowsQuery as Promise<RecordRow[]>),
          page ? countQuery(db, def.table, counted ? undefined : base, ctx.principal) : 0,
        ]);
        const results = await render(db, rows, ctx.baseUrl);
        ctx.response.body = page ? paginated(ctx, page, count, results) : results;
      },
      openapi: {
        summary: `Alle ${def.label}en opvragen.`,
        tags: [def.tag],
        successStatus: 200,
        responseSchema: def.paginated ? paginatedSchema(ref) : { type: 'array', items: ref },
      },
    });
  }
  if (has('create')) {
    operations.push({
      id: `${def.name}_create`,
      method: 'post',
      path: def.path,
      resource: def.name,
      action: 'create',
      write: true,
      scopes: def.scopes.create,
      requestBody: bodySchema,
      accessSubjects,
      load: (ctx) => locate(ctx, true),
      prepare: (ctx) => prepareWrite(ctx, true),
      validate: (ctx) => recordErrors(ctx, true),
      lock: lockZaken,
      async execute(ctx) {
        const { zaak, columns } = requestState.get(ctx)!;
        ctx.response.status = 201;
        ctx.result = await insertRecord(requestOrigin(ctx), zaak, ctx.data!, columns ?? {});
        ctx.response.body = ctx.result;
        ctx.response.headers.location = String(ctx.result.url);
      },
      openapi: {
        summary: `Maak een ${def.label} aan.`,
        tags: [def.tag],
        successStatus: 201,
        responseSchema: ref,
        requestSchema: requestRef,
        successHeaders: { Location: { description: 'URL waar de resource leeft.', schema: { type: 'string', format: 'uri' } } },
      },
    });
  }
  if (retrieveName) {
    operations.push({
      ...read,
      id: `${def.name}_${retrieveName}`,
      method: 'get',
      path: detailPath,
      action: 'retrieve',
      load: async (ctx) => void (await loadCurrent(ctx, { render: false })),
      async execute(ctx) {
        ctx.current = (await render(ctx.db, [requestState.get(ctx)!.row!], ctx.baseUrl))[0];
        ctx.response.body = ctx.current;
      },
      openapi: { summary: `Een specifieke ${def.label} opvragen.`, tags: [def.tag], successStatus: 200, responseSchema: ref, head: has('headers') },
    });
  }
  for (const action of ['update', 'partial_update'] as const) {
    if (!has(action)) continue;
    operations.push({
      id: `${def.name}_${action}`,
      method: action === 'update' ? 'put' : 'patch',
      path: detailPath,
      resource: def.name,
      action,
      write: true,
      scopes: def.scopes.update,
      requestBody: action === 'update' ? bodySchema : patchSchema,
      accessSubjects,
      load: (ctx) => locate(ctx, false),
      prepare: (ctx) => prepareWrite(ctx, false),
      validate: (ctx) => recordErrors(ctx, false),
      lock: lockZaken,
      async execute(ctx) {
        const { zaak, columns } = requestState.get(ctx)!;
        const locked = await lockedRecordOf(ctx);
        const refused = def.changeErrors?.(locked) ?? [];
        if (refused.length) throw validationError(refused);
        ctx.result = await updateRecord(requestOrigin(ctx), zaak, locked.id, ctx.current!, ctx.data!, columns ?? {});
        ctx.response.body = ctx.result;
      },
      openapi: {
        summary: action === 'update' ? `Werk een ${def.label} in zijn geheel bij.` : `Werk een ${def.label} deels bij.`,
        description: def.descriptions?.[action],
        tags: [def.tag],
        successStatus: 200,
        responseSchema: ref,
        requestSchema: action === 'update' ? requestRef : patchRef,
      },
    });
  }
  if (destroyName) {
    operations.push({
      id: `${def.name}_${destroyName}`,
      method: 'delete',
      path: detailPath,
      resource: def.name,
      action: 'destroy',
      write: true,
      scopes: def.scopes.destroy,
      load: async (ctx) => void (await loadCurrent(ctx)),
      lock: lockZaken,
      async execute(ctx) {
        const { zaak } = requestState.get(ctx)!;
        const locked = await lockedRecordOf(ctx);
        ctx.response.status = 204;
        await deleteRecord(requestOrigin(ctx), zaak, locked.id, ctx.current!);
      },
      openapi: { summary: `Verwijder een ${def.label}.`, tags: [def.tag], successStatus: 204 },
    });
  }
  if (def.deprecated) for (const operation of operations) operation.openapi.deprecated = true;
  return operations;
}
