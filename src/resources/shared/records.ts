import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Operation, QueryParameter } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import type { RequestContext } from '../../plugin.js';
import { ProblemError, invalidParam, validationError, type InvalidParam } from '../../problem.js';
import { requestSchema, validate } from '../../schema/validate.js';
import { insertRow, quoteIdentifier } from '../../storage/named-statement.js';
import { PREPARED } from '../../storage/statement-batching.js';
import { PG_UNIQUE_VIOLATION } from '../../storage/types.js';
import { recordChange, requestOrigin, type AnnounceChange, type ChangeActor, type ChangeOrigin } from '../audittrail/record.js';
import { contractComponents, contractSchema, variantSchema } from '../contract/index.js';
import { zaakSummary } from '../zaak/representation.js';
import { findZaakByUuid, selectZaken, withRevision, zaakColumns, type ZaakRow } from '../zaak/repository.js';
import { restrictToAuthorized, type AccessSubject } from './access.js';
import { paginated, paginatedSchema, paginationParameters, pageOf } from './pagination.js';
import { iso, localZaakUuid, UUID_PATTERN } from './references.js';

/** `headers`: HEAD on the detail path is documented (the contract lists it where ETags are served). */
export type RecordAction = 'list' | 'create' | 'retrieve' | 'headers' | 'update' | 'partial_update' | 'destroy';

/** An API field stored in a column of the record's table. */
export interface StoredField {
  field: string;
  column: string;
  kind?: 'text' | 'json' | 'timestamp';
}

/** A filter of a record list: its query parameter and how it narrows the query. */
export interface RecordFilter extends QueryParameter {
  apply(query: Knex.QueryBuilder, value: unknown, ctx: RequestContext): void;
}

/** A record row as read: its columns plus the uuid of its zaak. */
export interface RecordRow {
  id: number;
  uuid: string;
  zaak_id: number;
  zaak_uuid: string;
  [column: string]: unknown;
}

/** What a record's `prepare` may use: the services, the base URL and, for API requests, the caller. */
export type WriteScope = Pick<RequestContext, 'registry' | 'baseUrl' | 'principal'>;

export interface PrepareContext {
  ctx: WriteScope;
  /** Where to look things up: the storage (API requests, before their transaction) or the caller's transaction. */
  db: Knex | Knex.Transaction;
  creating: boolean;
  /** The zaak the record belongs to after the change. */
  zaak: ZaakRow;
  /** The record as it is now (updates). */
  current?: RecordRow;
}

/**
 * A record that belongs to a zaak (Status, Rol, ZaakObject, ...): declared once, served as the
 * operations the contract lists for it, with validation, zrc-006 filtering and the audit trail.
 */
export interface ZaakRecordDefinition {
  /** Singular name: operationId prefix and `resource` in the audit trail, e.g. `status`. */
  name: string;
  table: string;
  /** Collection path: `/statussen`, or nested `/zaken/{zaak_uuid}/zaakeigenschappen`. */
  path: string;
  tag: string;
  /** The contract schema that describes it, e.g. `Status`. */
  component: string;
  /** Name in summaries, e.g. `STATUS`. */
  label: string;
  actions: readonly RecordAction[];
  /** Scopes per kind of operation; any one of a list suffices. */
  scopes: { read: string[]; create: string[]; update?: string[]; destroy?: string[] };
  /** Lists are paginated, or bare arrays, as the contract says. */
  paginated: boolean;
  /** Stored fields besides `zaak`, client-writable or derived when written. */
  fields: StoredField[];
  filters?: RecordFilter[];
  /** A polymorphic field whose shape depends on a discriminator (Rol.betrokkeneIdentificatie). */
  variant?: { discriminator: string; field: string };
  /** Rules beyond the schema, on the complete record after the change. */
  check?(record: Record<string, unknown>): InvalidParam[];
  /**
   * Rules against the stored records (one resultaat per zaak), checked with the validation so that a
   * conflict is a 400 before a closed zaak's 403, as in the ZGW reference; the constraint still decides races.
   */
  conflicts?(context: PrepareContext): Promise<InvalidParam[]>;
  /**
   * Authorization beyond the scopes that depends on the zaak's records (zaken.aanmaken sets only a
   * first status): before the write's look-ups, and again inside its transaction on the locked zaak.
   */
  authorize?(context: PrepareContext): Promise<void>;
  /**
   * Resolves references and derives stored values before the write (catalog look-ups, local links):
   * sets derived API fields on `data`, returns columns that are no API field (a resolved link's id).
   */
  prepare?(data: Record<string, unknown>, context: PrepareContext): Promise<Record<string, unknown> | void>;
  /** Read-only fields derived from other records, for a page of rows in a fixed number of queries. */
  derive?(db: Knex | Knex.Transaction, rows: RecordRow[], baseUrl: string): Promise<(row: RecordRow) => Record<string, unknown>>;
  /** Columns to select besides the table's own (joined values the representation needs). */
  joins?(query: Knex.QueryBuilder): void;
  /**
   * A created row rendered from what its insert returns, not read back (a round trip less per create):
   * SQL expressions the insert's RETURNING adds by alias (over the new row, by table name) for what
   * `joins` and `derive` give, and the derived fields from them. Without it, a definition with
   * `joins` or `derive` reads a created row back.
   */
  inserted?: { returning: Record<string, string>; derive(row: RecordRow, baseUrl: string): Record<string, unknown> };
  /** A unique constraint's name → the error to answer when a write violates it. */
  unique?: Record<string, InvalidParam>;
  /** `resourceWeergave` in the audit trail. */
  weergave(record: Record<string, unknown>): string;
}

const state = new WeakMap<RequestContext, { zaak: ZaakRow; row?: RecordRow; columns?: Record<string, unknown> }>();

/** Where a service-layer write happens: the caller's transaction, base URL and (for the audit trail) who. */
export interface RecordWriteScope {
  readonly registry: RequestContext['registry'];
  readonly baseUrl: string;
  readonly tx: Knex.Transaction;
  readonly actor?: ChangeActor;
}

/** Writes of one kind of record without a request: for plugins and admin code (`services.zaken`). */
export interface RecordWriter {
  create(scope: RecordWriteScope, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  update(scope: RecordWriteScope, record: string, fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  destroy(scope: RecordWriteScope, record: string): Promise<void>;
}

/** The operations, schemas and helpers of one zaak record resource; changes are announced with `announce`. */
export function zaakRecordResource(def: ZaakRecordDefinition, announce: AnnounceChange) {
  const nested = def.path.includes('{zaak_uuid}');
  const schema = contractSchema(def.component);
  // A polymorphic field is declared by the variants only; it comes last, as in the contract's allOf.
  const properties = [...Object.keys(schema.properties as object), ...(def.variant ? [def.variant.field] : [])];
  const fieldsByName = new Map(def.fields.map((f) => [f.field, f]));
  const extra = def.variant ? { [def.variant.field]: { type: 'object', nullable: true } } : {};
  const bodySchema = requestSchema(schema, { extra });
  const patchSchema = requestSchema(schema, { partial: true, extra });
  const ref = { $ref: `#/components/schemas/${def.component}` };
  const detailPath = `${def.path}/{uuid}`;
  // Named, not `*`: a prepared insert returning `*` fails once a migration adds a column.
  const renderedColumns = ['id', 'uuid', 'zaak_id', ...def.fields.map((field) => field.column)];
  /** What an insert answers: the rendered columns and the definition's derived ones (`inserted.returning`). */
  const insertedReturning = [
    ...renderedColumns.map(quoteIdentifier),
    ...Object.entries(def.inserted?.returning ?? {}).map(([alias, sql]) => `(${sql}) as ${quoteIdentifier(alias)}`),
  ].join(', ');
  const urlOf = (baseUrl: string, row: { uuid: string; zaak_uuid: string }) =>
    `${baseUrl}${def.path.replace('{zaak_uuid}', row.zaak_uuid)}/${row.uuid}`;

  function select(db: Knex | Knex.Transaction): Knex.QueryBuilder {
    const query = db(def.table).join('zaak', 'zaak.id', `${def.table}.zaak_id`).select(`${def.table}.*`, { zaak_uuid: 'zaak.uuid' });
    def.joins?.(query);
    return query;
  }

  /** Representations for a page of rows, fields in the contract's order. */
  async function render(db: Knex | Knex.Transaction, rows: RecordRow[], baseUrl: string): Promise<Record<string, unknown>[]> {
    return renderRows(rows, baseUrl, (await def.derive?.(db, rows, baseUrl)) ?? (() => ({})));
  }

  function renderRows(rows: RecordRow[], baseUrl: string, derived: (row: RecordRow) => Record<string, unknown>): Record<string, unknown>[] {
    return rows.map((row) => {
      const extra = derived(row);
      const out: Record<string, unknown> = {};
      for (const name of properties) {
        if (name === 'url') out.url = urlOf(baseUrl, row);
        else if (name === 'uuid') out.uuid = row.uuid;
        else if (name === 'zaak') out.zaak = `${baseUrl}/zaken/${row.zaak_uuid}`;
        else if (name in extra) out[name] = extra[name];
        else if (fieldsByName.has(name)) out[name] = fromColumn(row, fieldsByName.get(name)!);
      }
      return out;
    });
  }

  function toColumns(data: Record<string, unknown>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const field of def.fields) {
      if (!(field.field in data)) continue;
      const value = data[field.field];
      if (field.kind === 'json') row[field.column] = value === null || value === undefined ? null : JSON.stringify(value);
      else if (field.kind === 'timestamp') row[field.column] = value ?? null;
      else row[field.column] = value ?? '';
    }
    return row;
  }

  async function findRow(db: Knex | Knex.Transaction, uuid: string, zaakUuid?: string, forUpdate = false): Promise<RecordRow | undefined> {
    const query = select(db).where(`${def.table}.uuid`, uuid);
    if (zaakUuid) query.where('zaak.uuid', zaakUuid);
    if (forUpdate) query.forUpdate(def.table);
    // Planned once per connection: one name per fixed SQL text (see findZaakByUuid).
    query.options({ name: `${def.table}_by_uuid${zaakUuid ? '_of_zaak' : ''}${forUpdate ? '_locked' : ''}` });
    return (await query.first()) as RecordRow | undefined;
  }

  /**
   * Detail operations: the record and its zaak, or 404. The zaak (and its revision) is read first, the
   * record after it: what is rendered is never older than the revision a cache remembers it by.
   */
  async function loadCurrent(ctx: RequestContext, options: { render: boolean } = { render: true }): Promise<RecordRow> {
    const db = ctx.registry.storage.knex;
    const owner = db(def.table).where(`${def.table}.uuid`, ctx.params.uuid).select(`${def.table}.zaak_id`);
    let zaak: ZaakRow | undefined;
    let row: RecordRow | undefined;
    // A record moved to another zaak between the two reads is read again: the pair must belong together.
    for (let attempt = 0; attempt < 3 && (!row || row.zaak_id !== zaak!.id); attempt++) {
      zaak = (await withRevision(selectZaken(db)).where('zaak.id', owner).first(zaakColumns(db)).options({ name: `${def.table}_zaak_by_uuid` })) as
        | ZaakRow
        | undefined;
      row = zaak && (await findRow(db, ctx.params.uuid, nested ? ctx.params.zaak_uuid : undefined));
      if (!zaak || !row) throw new ProblemError('not_found', { detail: `${def.label} niet gevonden.` });
    }
    if (!zaak || !row || row.zaak_id !== zaak.id) throw new ProblemError('conflict', { detail: `${def.label} verhuisde tijdens het lezen; probeer het opnieuw.` });
    // Reads render in `execute`: an answer from a cache (`preHandler`) then costs no rendering.
    if (options.render) ctx.current = (await render(db, [row], ctx.baseUrl))[0];
    ctx.zaak = zaakSummary(zaak, ctx.baseUrl);
    ctx.zaakRevision = zaak.revision == null ? undefined : String(zaak.revision);
    state.set(ctx, { zaak, row });
    return row;
  }

  /** The zaak of a new or changed record: from the path (nested) or the `zaak` URL in the body. */
  async function zaakFor(ctx: RequestContext, data: Record<string, unknown>): Promise<ZaakRow> {
    const db = ctx.registry.storage.knex;
    if (nested) {
      const zaak = await findZaakByUuid(db, ctx.params.zaak_uuid);
      if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
      if (typeof data.zaak === 'string' && localZaakUuid(ctx.baseUrl, data.zaak) !== zaak.uuid) {
        throw invalidParam('zaak', 'invalid', 'De zaak moet de zaak uit het pad zijn.');
      }
      return zaak;
    }
    if (typeof data.zaak !== 'string') return state.get(ctx)!.zaak; // a partial update keeps the record's zaak
    const uuid = localZaakUuid(ctx.baseUrl, data.zaak);
    if (!uuid) throw invalidParam('zaak', 'no_match', 'Ongeldige hyperlink - geen URL van een zaak in deze registratie.');
    const zaak = await findZaakByUuid(db, uuid);
    if (!zaak) throw invalidParam('zaak', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    return zaak;
  }

  function variantErrors(record: Record<string, unknown>): InvalidParam[] {
    if (!def.variant) return [];
    const value = record[def.variant.field];
    if (value === undefined || value === null) return [];
    const shape = variantSchema(def.component, String(record[def.variant.discriminator]), def.variant.field);
    return shape ? validate(shape, value, def.variant.field) : [];
  }

  const subjectsByCtx = new WeakMap<RequestContext, Record<string, unknown>[]>();

  /** Writes, before the scope check: the record (updates) and the zaak it will belong to. */
  async function locate(ctx: RequestContext, creating: boolean): Promise<void> {
    const current = creating ? undefined : await loadCurrent(ctx);
    const zaak = await zaakFor(ctx, { ...ctx.body });
    const before = state.get(ctx)?.zaak;
    // Moving a record to another zaak needs the scope on both.
    const subjects = [...(before && before.id !== zaak.id ? [before] : []), zaak].map((z) => zaakSummary(z, ctx.baseUrl));
    subjectsByCtx.set(ctx, subjects);
    ctx.zaak = subjects[subjects.length - 1];
    state.set(ctx, { zaak, row: current });
  }

  /** The record's rules beyond the schema, on the record as it will be, and its conflicts with stored records. */
  async function recordErrors(ctx: RequestContext, creating: boolean): Promise<InvalidParam[]> {
    const { zaak, row: current } = state.get(ctx)!;
    const record = { ...(ctx.current ?? {}), ...ctx.body };
    const conflicts = (await def.conflicts?.({ ctx, db: ctx.registry.storage.knex, creating, zaak, current })) ?? [];
    return [...variantErrors(record), ...(def.check?.(record) ?? []), ...conflicts];
  }

  /** Writes, once authorized: look-ups and derived values. */
  async function prepareWrite(ctx: RequestContext, creating: boolean): Promise<void> {
    const { zaak, row: current } = state.get(ctx)!;
    const data: Record<string, unknown> = { ...ctx.body };
    const context: PrepareContext = { ctx, db: ctx.registry.storage.knex, creating, zaak, current };
    await def.authorize?.(context);
    const columns = (await def.prepare?.(data, context)) ?? {};
    if (!nested || 'zaak' in (schema.properties as object)) data.zaak = `${ctx.baseUrl}/zaken/${zaak.uuid}`;
    ctx.data = data;
    state.set(ctx, { zaak, row: current, columns });
  }
  /**
   * Inside the write's transaction: the zaken it touches (the record's, and the one it moves to), locked
   * in uuid order and read again, so the scopes and the definition's own authorization are decided on
   * them as they are now.
   */
  async function lockZaken(ctx: RequestContext): Promise<void> {
    const tx = ctx.tx!;
    const current = state.get(ctx)!;
    const subjects = subjectsByCtx.get(ctx) ?? [zaakSummary(current.zaak, ctx.baseUrl)];
    const locked = new Map<string, ZaakRow>();
    for (const uuid of [...new Set(subjects.map((subject) => String(subject.uuid)))].sort()) {
      const row = await findZaakByUuid(tx, uuid, { forUpdate: true });
      if (!row) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
      locked.set(uuid, row);
    }
    const now = subjects.map((subject) => zaakSummary(locked.get(String(subject.uuid))!, ctx.baseUrl));
    subjectsByCtx.set(ctx, now);
    ctx.zaak = now[now.length - 1];
    const zaak = locked.get(current.zaak.uuid)!;
    state.set(ctx, { ...current, zaak });
    await def.authorize?.({ ctx, db: tx, creating: !current.row, zaak, current: current.row });
  }

  /** The record, locked; refused when it moved to another zaak since it was authorized on its zaak as read. */
  async function lockedRecordOf(ctx: RequestContext): Promise<RecordRow> {
    const { row } = state.get(ctx)!;
    const locked = await findRow(ctx.tx!, row!.uuid, undefined, true);
    if (!locked) throw new ProblemError('not_found', { detail: `${def.label} niet gevonden.` });
    if (locked.zaak_id !== row!.zaak_id) throw new ProblemError('conflict', { detail: `${def.label} is intussen gewijzigd; probeer het opnieuw.` });
    return locked;
  }

  const accessSubjects = (ctx: RequestContext) => (subjectsByCtx.get(ctx) ?? (ctx.zaak ? [ctx.zaak] : [])) as unknown as AccessSubject[];

  function uniqueError(error: unknown): ProblemError | undefined {
    const e = error as { code?: string; constraint?: string };
    const param = e.code === PG_UNIQUE_VIOLATION && e.constraint ? def.unique?.[e.constraint] : undefined;
    return param ? validationError([param]) : undefined;
  }

  async function renderById(db: Knex.Transaction, baseUrl: string, id: number): Promise<Record<string, unknown>> {
    const row = (await select(db).where(`${def.table}.id`, id).first()) as RecordRow;
    return (await render(db, [row], baseUrl))[0];
  }

  /** The audit trail row and the `resourceChanged` announcement of one write. */
  function recordWrite(origin: ChangeOrigin, zaak: ZaakRow, oud: Record<string, unknown> | null, nieuw: Record<string, unknown> | null) {
    const subject = (nieuw ?? oud)!;
    return recordChange(
      origin,
      {
        zaakId: zaak.id,
        hoofdObject: `${origin.baseUrl}/zaken/${zaak.uuid}`,
        zaak: zaakSummary(zaak, origin.baseUrl),
        resource: def.name,
        resourceUrl: String(subject.url),
        resourceWeergave: def.weergave(subject),
        oud,
        nieuw,
      },
      announce,
    );
  }

  // The writes themselves, shared by the API operations and the service layer.
  async function insertRecord(origin: ChangeOrigin, zaak: ZaakRow, data: Record<string, unknown>, columns: Record<string, unknown>) {
    const { tx, baseUrl } = origin;
    const readBack = !def.inserted && (def.joins || def.derive);
    let row: RecordRow;
    try {
      [row] = await insertRow<RecordRow>(tx, def.table, { uuid: randomUUID(), zaak_id: zaak.id, ...toColumns(data), ...columns }, { returning: readBack ? '"id"' : insertedReturning, ...PREPARED });
    } catch (error) {
      throw uniqueError(error) ?? error;
    }
    const result = readBack
      ? await renderById(tx, baseUrl, row.id)
      : renderRows([{ ...row, zaak_uuid: zaak.uuid }], baseUrl, (inserted) => def.inserted?.derive(inserted, baseUrl) ?? {})[0];
    await recordWrite(origin, zaak, null, result);
    return result;
  }

  async function updateRecord(origin: ChangeOrigin, zaak: ZaakRow, id: number, before: Record<string, unknown>, data: Record<string, unknown>, columns: Record<string, unknown>) {
    try {
      await origin.tx(def.table).where({ id }).update({ zaak_id: zaak.id, ...toColumns(data), ...columns });
    } catch (error) {
      throw uniqueError(error) ?? error;
    }
    const result = await renderById(origin.tx, origin.baseUrl, id);
    await recordWrite(origin, zaak, before, result);
    return result;
  }

  async function deleteRecord(origin: ChangeOrigin, zaak: ZaakRow, id: number, before: Record<string, unknown>) {
    await origin.tx(def.table).where({ id }).delete();
    await recordWrite(origin, zaak, before, null);
  }

  const read = { write: false, resource: def.name, scopes: def.scopes.read } as const;
  const operations: Operation[] = [];
  const has = (action: RecordAction) => def.actions.includes(action);
  const filters = [...(nested ? [] : [zaakFilter]), ...(def.filters ?? [])];

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
        const zaak = await findZaakByUuid(ctx.registry.storage.knex, ctx.params.zaak_uuid);
        if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
        ctx.zaak = zaakSummary(zaak, ctx.baseUrl);
      },
      async execute(ctx) {
        const db = ctx.registry.storage.knex;
        const base = db(def.table).join('zaak', 'zaak.id', `${def.table}.zaak_id`);
        if (nested) base.where('zaak.uuid', ctx.params.zaak_uuid);
        for (const filter of filters) if (ctx.query[filter.name] !== undefined) filter.apply(base, ctx.query[filter.name], ctx);
        restrictToAuthorized(base, ctx.principal);
        const page = def.paginated ? pageOf(ctx) : undefined;
        const rowsQuery = select(db).whereIn(`${def.table}.id`, base.clone().select(`${def.table}.id`)).orderBy(`${def.table}.id`);
        if (page) rowsQuery.limit(page.size).offset(page.offset);
        const [rows, count] = await Promise.all([
          rowsQuery as Promise<RecordRow[]>,
          page ? base.clone().count({ count: '*' }).then(([r]) => Number(r.count)) : 0,
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
        const { zaak, columns } = state.get(ctx)!;
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
        requestSchema: ref,
        successHeaders: { Location: { description: 'URL waar de resource leeft.', schema: { type: 'string', format: 'uri' } } },
      },
    });
  }
  if (has('retrieve')) {
    operations.push({
      ...read,
      id: `${def.name}_retrieve`,
      method: 'get',
      path: detailPath,
      action: 'retrieve',
      load: async (ctx) => void (await loadCurrent(ctx, { render: false })),
      async execute(ctx) {
        ctx.current = (await render(ctx.registry.storage.knex, [state.get(ctx)!.row!], ctx.baseUrl))[0];
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
        const { zaak, columns } = state.get(ctx)!;
        const locked = await lockedRecordOf(ctx);
        ctx.result = await updateRecord(requestOrigin(ctx), zaak, locked.id, ctx.current!, ctx.data!, columns ?? {});
        ctx.response.body = ctx.result;
      },
      openapi: {
        summary: action === 'update' ? `Werk een ${def.label} in zijn geheel bij.` : `Werk een ${def.label} deels bij.`,
        tags: [def.tag],
        successStatus: 200,
        responseSchema: ref,
        requestSchema: action === 'update' ? ref : { $ref: `#/components/schemas/Patched${def.component}` },
      },
    });
  }
  if (has('destroy')) {
    operations.push({
      id: `${def.name}_destroy`,
      method: 'delete',
      path: detailPath,
      resource: def.name,
      action: 'destroy',
      write: true,
      scopes: def.scopes.destroy,
      load: async (ctx) => void (await loadCurrent(ctx)),
      lock: lockZaken,
      async execute(ctx) {
        const { zaak } = state.get(ctx)!;
        const locked = await lockedRecordOf(ctx);
        ctx.response.status = 204;
        await deleteRecord(requestOrigin(ctx), zaak, locked.id, ctx.current!);
      },
      openapi: { summary: `Verwijder een ${def.label}.`, tags: [def.tag], successStatus: 204 },
    });
  }

  const serviceOrigin = (scope: RecordWriteScope, action: ChangeOrigin['action'], status: number): ChangeOrigin => ({
    tx: scope.tx,
    baseUrl: scope.baseUrl,
    action,
    source: 'service',
    status,
    actor: scope.actor ?? { clientId: 'zaakregister', applicationLabel: 'zaakregister (service)' },
  });

  /** The record a service call names by URL or uuid, locked for the rest of the transaction. */
  async function lockedRecord(scope: RecordWriteScope, record: string): Promise<RecordRow> {
    const uuid = UUID_PATTERN.test(record) ? record.toLowerCase() : recordUuid(scope.baseUrl, record);
    const row = uuid ? await findRow(scope.tx, uuid, undefined, true) : undefined;
    if (!row) throw new ProblemError('not_found', { detail: `${def.label} niet gevonden.` });
    return row;
  }

  function recordUuid(baseUrl: string, url: string): string | undefined {
    const [prefix, suffix = ''] = `${baseUrl}${def.path}/`.split('{zaak_uuid}');
    if (!url.startsWith(prefix)) return undefined;
    const rest = url.slice(prefix.length);
    const uuid = nested ? rest.slice(rest.indexOf(suffix) + suffix.length) : rest;
    return UUID_PATTERN.test(uuid) ? uuid.toLowerCase() : undefined;
  }

  /** Checks and derivations of a service write: the schema, the definition's rules and `prepare`. */
  async function prepareServiceWrite(scope: RecordWriteScope, data: Record<string, unknown>, zaak: ZaakRow, current?: { row: RecordRow; record: Record<string, unknown> }) {
    const fields = { ...data };
    delete fields.zaak;
    const errors = [
      ...validate(current ? patchSchema : bodySchema, { ...fields, zaak: `${scope.baseUrl}/zaken/${zaak.uuid}` }),
      ...variantErrors({ ...current?.record, ...fields }),
      ...(def.check?.({ ...current?.record, ...fields }) ?? []),
    ];
    if (errors.length) throw validationError(errors);
    const columns = (await def.prepare?.(fields, { ctx: { ...scope, principal: undefined }, db: scope.tx, creating: !current, zaak, current: current?.row })) ?? {};
    return { fields, columns };
  }

  async function zaakOfServiceWrite(scope: RecordWriteScope, data: Record<string, unknown>): Promise<ZaakRow> {
    const uuid = typeof data.zaak === 'string' ? (UUID_PATTERN.test(data.zaak) ? data.zaak.toLowerCase() : localZaakUuid(scope.baseUrl, data.zaak)) : undefined;
    const zaak = uuid ? await findZaakByUuid(scope.tx, uuid) : undefined;
    if (!zaak) throw invalidParam('zaak', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    return zaak;
  }

  const writer: RecordWriter = {
    async create(scope, data) {
      const zaak = await zaakOfServiceWrite(scope, data);
      const { fields, columns } = await prepareServiceWrite(scope, data, zaak);
      return insertRecord(serviceOrigin(scope, 'create', 201), zaak, fields, columns);
    },
    async update(scope, record, data) {
      const row = await lockedRecord(scope, record);
      const before = (await render(scope.tx, [row], scope.baseUrl))[0];
      const zaak = 'zaak' in data ? await zaakOfServiceWrite(scope, data) : (await findZaakByUuid(scope.tx, row.zaak_uuid))!;
      const { fields, columns } = await prepareServiceWrite(scope, data, zaak, { row, record: before });
      return updateRecord(serviceOrigin(scope, 'partial_update', 200), zaak, row.id, before, fields, columns);
    },
    async destroy(scope, record) {
      const row = await lockedRecord(scope, record);
      const before = (await render(scope.tx, [row], scope.baseUrl))[0];
      const zaak = (await findZaakByUuid(scope.tx, row.zaak_uuid))!;
      await deleteRecord(serviceOrigin(scope, 'destroy', 204), zaak, row.id, before);
    },
  };

  /** The records of some zaken (by uuid) as clients see them, oldest first. */
  async function list(db: Knex | Knex.Transaction, zaakUuids: string[], baseUrl: string): Promise<Record<string, unknown>[]> {
    if (!zaakUuids.length) return [];
    const rows = (await select(db).whereIn('zaak.uuid', zaakUuids).orderBy(`${def.table}.id`)) as RecordRow[];
    return render(db, rows, baseUrl);
  }

  const openapi: OpenApiFragment = { components: { schemas: contractFragment(def.component) } };
  return { operations, openapi, list, writer };
}

/** `?zaak=<url>`: the records of one zaak (a URL that is no zaak here matches nothing). */
const zaakFilter: RecordFilter = {
  name: 'zaak',
  description: 'URL-referentie naar de ZAAK.',
  schema: { type: 'string', format: 'uri' },
  apply: (query, value, ctx) => void query.where('zaak.uuid', localZaakUuid(ctx.baseUrl, String(value)) ?? null),
};

/** Filters on a column of the record's table: `?statustype=<url>`. */
export function columnFilter(table: string, name: string, column: string, description: string, schema: Record<string, unknown> = { type: 'string' }): RecordFilter {
  return { name, description, schema, apply: (query, value) => void query.where(`${table}.${column}`, value as string) };
}

/** The request body also carries the polymorphic field, checked against its variant separately. */
function fromColumn(row: RecordRow, field: StoredField): unknown {
  const value = row[field.column];
  if (field.kind === 'timestamp') return iso(value);
  return value ?? null;
}

/** The contract's schemas one resource refers to, transitively (served in the OpenAPI document). */
function contractFragment(component: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const visit = (name: string) => {
    if (out[name] || !contractComponents[name]) return;
    out[name] = contractComponents[name];
    for (const match of JSON.stringify(contractComponents[name]).matchAll(/#\/components\/schemas\/([A-Za-z_]+)/g)) visit(match[1]);
  };
  visit(component);
  visit(`Patched${component}`);
  return out;
}

