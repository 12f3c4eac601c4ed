import type { RequestContext } from '../../../plugin.js';
import { ProblemError, invalidParam, type InvalidParam } from '../../../problem.js';
import { zaakSummary } from '../../zaak/representation.js';
import { zaakColumns, type ZaakRow } from '../../zaak/columns.js';
import { findZaakByUuid, selectZaken, withRevision } from '../../zaak/repository.js';
import type { AccessSubject } from '../access.js';
import { localZaakUuid } from '../references.js';
import type { PrepareContext, RecordRow } from './definition.js';
import type { RecordKind } from './kind.js';

/** What a request's steps found (the zaak, the record, prepared columns), for the steps after them. */
export const requestState = new WeakMap<RequestContext, { zaak: ZaakRow; row?: RecordRow; columns?: Record<string, unknown> }>();

/** The answer to an update naming another zaak for a record that stays with its own (`staysWithZaak`). */
export const ZAAK_UNCHANGEABLE: InvalidParam = { name: 'zaak', code: 'wijzigen-niet-toegelaten', reason: 'Dit veld mag niet gewijzigd worden.' };

/**
 * The steps of a record request before its `execute`: finding the record and its zaak, the rules,
 * look-ups and derived values of a write, and the zaken locked inside its transaction.
 */
export function requestSteps(kind: RecordKind) {
  const { def, nested, zaakField, schema, writtenFields, render, findRow, variantErrors } = kind;
  /**
   * Detail operations: the record and its zaak, or 404. The zaak (and its revision) is read first, the
   * record after it: what is rendered is never older than the revision a cache remembers it by.
   */
  async function loadCurrent(ctx: RequestContext, options: { render: boolean } = { render: true }): Promise<RecordRow> {
    const db = ctx.db;
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
    requestState.set(ctx, { zaak, row });
    return row;
  }

  /** The zaak of a new or changed record: from the path (nested) or the zaak URL in the body (`zaak`, `gerelateerdAan`). */
  async function zaakFor(ctx: RequestContext, data: Record<string, unknown>): Promise<ZaakRow> {
    const db = ctx.registry.storage.knex;
    const url = data[zaakField];
    if (nested) {
      const zaak = await findZaakByUuid(db, ctx.params.zaak_uuid);
      if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
      if (typeof url === 'string' && localZaakUuid(ctx.baseUrl, url) !== zaak.uuid) {
        throw invalidParam(zaakField, 'invalid', 'De zaak moet de zaak uit het pad zijn.');
      }
      return zaak;
    }
    if (typeof url !== 'string') return requestState.get(ctx)!.zaak; // a partial update keeps the record's zaak
    const uuid = localZaakUuid(ctx.baseUrl, url);
    if (!uuid) throw invalidParam(zaakField, 'no_match', 'Ongeldige hyperlink - geen URL van een zaak in deze registratie.');
    const zaak = await findZaakByUuid(db, uuid);
    if (!zaak) throw invalidParam(zaakField, 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    return zaak;
  }

  const subjectsByCtx = new WeakMap<RequestContext, Record<string, unknown>[]>();
  /** Updates that name another zaak for a record that stays with its own: refused in `recordErrors`. */
  const movingAway = new WeakSet<RequestContext>();

  /** Writes, before the scope check: the record (updates) and the zaak it will belong to. */
  async function locate(ctx: RequestContext, creating: boolean): Promise<void> {
    const current = creating ? undefined : await loadCurrent(ctx);
    const before = requestState.get(ctx)?.zaak;
    let zaak = await zaakFor(ctx, { ...ctx.body });
    if (def.staysWithZaak && before && zaak.id !== before.id) {
      // Judged on its own zaak only: the other zaak is neither authorized nor looked at.
      movingAway.add(ctx);
      zaak = before;
    }
    // Moving a record to another zaak needs the scope on both.
    const subjects = [...(before && before.id !== zaak.id ? [before] : []), zaak].map((z) => zaakSummary(z, ctx.baseUrl));
    subjectsByCtx.set(ctx, subjects);
    ctx.zaak = subjects[subjects.length - 1];
    requestState.set(ctx, { zaak, row: current });
  }

  /** The record's rules beyond the schema, on the record as it will be, and its conflicts with stored records. */
  async function recordErrors(ctx: RequestContext, creating: boolean): Promise<InvalidParam[]> {
    const { zaak, row: current } = requestState.get(ctx)!;
    const record = { ...(ctx.current ?? {}), ...writtenFields(ctx.body, ctx.operation.action) };
    const conflicts = (await def.conflicts?.({ ctx, db: ctx.registry.storage.knex, creating, zaak, current })) ?? [];
    const moved = movingAway.has(ctx) ? [ZAAK_UNCHANGEABLE] : [];
    return [...moved, ...variantErrors(record), ...(def.check?.(record) ?? []), ...conflicts];
  }

  /** Writes, once authorized: look-ups and derived values. */
  async function prepareWrite(ctx: RequestContext, creating: boolean): Promise<void> {
    const { zaak, row: current } = requestState.get(ctx)!;
    const data = writtenFields(ctx.body, ctx.operation.action);
    const context: PrepareContext = { ctx, db: ctx.registry.storage.knex, creating, zaak, current };
    await def.authorize?.(context);
    const columns = (await def.prepare?.(data, context)) ?? {};
    if (!nested || zaakField in (schema.properties as object)) data[zaakField] = `${ctx.baseUrl}/zaken/${zaak.uuid}`;
    ctx.data = data;
    requestState.set(ctx, { zaak, row: current, columns });
  }
  /**
   * Inside the write's transaction: the zaken it touches (the record's, and the one it moves to), locked
   * in uuid order and read again, so the scopes and the definition's own authorization are decided on
   * them as they are now.
   */
  async function lockZaken(ctx: RequestContext): Promise<void> {
    const tx = ctx.tx!;
    const current = requestState.get(ctx)!;
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
    requestState.set(ctx, { ...current, zaak });
    await def.authorize?.({ ctx, db: tx, creating: !current.row, zaak, current: current.row });
  }

  /** The record, locked; refused when it moved to another zaak since it was authorized on its zaak as read. */
  async function lockedRecordOf(ctx: RequestContext): Promise<RecordRow> {
    const { row } = requestState.get(ctx)!;
    const locked = await findRow(ctx.tx!, row!.uuid, undefined, true);
    if (!locked) throw new ProblemError('not_found', { detail: `${def.label} niet gevonden.` });
    if (locked.zaak_id !== row!.zaak_id) throw new ProblemError('conflict', { detail: `${def.label} is intussen gewijzigd; probeer het opnieuw.` });
    return locked;
  }

  const accessSubjects = (ctx: RequestContext) => (subjectsByCtx.get(ctx) ?? (ctx.zaak ? [ctx.zaak] : [])) as unknown as AccessSubject[];

  return { loadCurrent, locate, recordErrors, prepareWrite, lockZaken, lockedRecordOf, accessSubjects };
}

export type RequestSteps = ReturnType<typeof requestSteps>;
