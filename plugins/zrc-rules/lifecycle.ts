import { ProblemError, hasAnyScope, invalidParam, validationError, type AccessSubject, type InvalidParam, type RequestContext } from '../../src/plugin-api.js';
import type { Lookups } from './lookups.js';

/** The resources whose changes a closed zaak refuses without `zaken.geforceerd-bijwerken`. */
const GUARDED = new Set(['zaak', 'klantcontact', 'resultaat', 'rol', 'status', 'zaakinformatieobject', 'zaakobject', 'zaakbesluit', 'zaakeigenschap', 'zaaknotitie']);
const FORCED = 'zaken.geforceerd-bijwerken';
const REOPEN = 'zaken.heropenen';

type Zaak = Record<string, unknown>;
const isStatusCreate = (ctx: RequestContext) => ctx.operation.resource === 'status' && ctx.operation.action === 'create';

/**
 * Open, closed, reopened (spec: States and transitions). Checked inside the write's transaction on
 * the locked zaken, after validation as the ZGW reference orders it (an invalid request is a 400 also
 * on a closed zaak): a zaak closed by a concurrent request is seen.
 */
export function lifecycle(lookups: Lookups) {
  const closing = new WeakMap<RequestContext, Promise<boolean>>();
  const locked = new WeakMap<RequestContext, Zaak>();

  /** Whether the status being created has the end statustype: the highest volgnummer of the zaaktype. */
  function closesZaak(ctx: RequestContext): Promise<boolean> {
    let answer = closing.get(ctx);
    if (!answer) {
      answer = (async () => {
        const url = String(ctx.data!.statustype);
        const [statustype, zaaktype] = await Promise.all([lookups.catalog(ctx, 'statustype', url, 'statustype'), lookups.zaaktypeOf(ctx, ctx.zaak!)]);
        if (!zaaktype.statustypen.includes(url)) return false;
        const volgnummers = (await lookups.statustypen(ctx, zaaktype)).map((s) => Number(s.volgnummer));
        return Number(statustype.volgnummer) === Math.max(...volgnummers);
      })();
      closing.set(ctx, answer);
    }
    return answer;
  }

  /** Writes that a closed zaak guards: its records' writes and its own updates (not its destruction). */
  function guarded(ctx: RequestContext): boolean {
    const { resource, action, write } = ctx.operation;
    if (!write || !resource || !GUARDED.has(resource)) return false;
    return resource !== 'zaak' || action === 'update' || action === 'partial_update';
  }

  /** The zaken the write touches: the zaak, or the record's zaak (both when a record moves). */
  function zakenOf(ctx: RequestContext): Zaak[] {
    const subjects = (ctx.operation.accessSubjects?.(ctx) ?? [ctx.zaak]) as Zaak[];
    return subjects.filter((zaak) => zaak && typeof zaak.uuid === 'string');
  }

  async function refuseIfClosed(ctx: RequestContext, zaak: Zaak): Promise<void> {
    if (!zaak.einddatum || !ctx.principal) return;
    const subject = zaak as unknown as AccessSubject;
    if (isStatusCreate(ctx) && !(await closesZaak(ctx))) {
      if (!hasAnyScope(ctx.principal, subject, [REOPEN])) {
        throw new ProblemError('permission_denied', { detail: 'De zaak is afgesloten; heropenen vraagt de scope zaken.heropenen.' });
      }
      return;
    }
    if (!hasAnyScope(ctx.principal, subject, [FORCED])) {
      throw new ProblemError('permission_denied', { detail: 'De zaak is afgesloten; wijzigen vraagt de scope zaken.geforceerd-bijwerken.' });
    }
  }

  /** Closing needs a resultaat and a known indicatieGebruiksrecht on every document. */
  async function checkClosing(ctx: RequestContext, zaak: Zaak): Promise<void> {
    const uuid = String(zaak.uuid);
    const errors: InvalidParam[] = [];
    const resultaten = await ctx.registry.zaken.records(ctx, 'resultaat', uuid);
    if (!resultaten.length) {
      errors.push({ name: 'nonFieldErrors', code: 'resultaat-does-not-exist', reason: 'Om een zaak af te sluiten moet een resultaat toegekend zijn.' });
    }
    const unset = (await lookups.documentsOf(ctx, uuid)).filter((d) => d.indicatieGebruiksrecht === null || d.indicatieGebruiksrecht === undefined);
    if (unset.length) {
      errors.push({
        name: 'nonFieldErrors',
        code: 'indicatiegebruiksrecht-unset',
        reason: `Van deze informatieobjecten is indicatieGebruiksrecht nog niet gezet: ${unset.map((d) => d.url).join(', ')}`,
      });
    }
    if (errors.length) throw validationError(errors);
  }

  /**
   * zrc-023: a zaak (or a deelzaak going with it) with besluiten stays; besluiten are removed first.
   * The zaak is locked, then its deelzaken as they are now: a besluit or deelzaak being added waits.
   */
  async function checkDestroy(ctx: RequestContext): Promise<void> {
    const zaak = await ctx.registry.zaken.find(ctx, String(ctx.current!.uuid), { lock: true, relations: true });
    if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    const deelzaken = [...((zaak.deelzaken as string[]) ?? [])].sort();
    for (const deelzaak of deelzaken) await ctx.registry.zaken.find(ctx, deelzaak, { lock: true });
    if ((await ctx.registry.zaken.records(ctx, 'zaakbesluit', [String(zaak.uuid), ...deelzaken])).length) {
      throw invalidParam('nonFieldErrors', 'related-besluiten', 'De zaak heeft nog besluiten; verwijder die eerst.');
    }
  }

  return {
    /**
     * Outside the transaction: fetch what closing will check, so the locked part stays short. A part
     * of a request (`ctx.tx` already open) checks it once, in `beforeWrite`.
     */
    async prefetch(ctx: RequestContext): Promise<void> {
      if (ctx.tx) return;
      if (isStatusCreate(ctx) && (await closesZaak(ctx))) await lookups.documentsOf(ctx, String(ctx.zaak!.uuid));
    },

    /**
     * Checks the state on the locked zaken the write touches: closed, closing, destruction. An
     * operation with a `lock` step has locked them already and set them as they are now; only the rows
     * it did not lock (`also`, a hoofdzaak being linked) are locked here, in uuid order (one order for
     * every request, so they cannot deadlock each other).
     */
    async beforeWrite(ctx: RequestContext, also: string[] = []): Promise<void> {
      const { resource, action } = ctx.operation;
      if (resource === 'zaak' && action === 'destroy') return checkDestroy(ctx);
      const touched = guarded(ctx) ? zakenOf(ctx) : [];
      // The lock step's contract: `ctx.zaak` and the access subjects are the zaken as it locked them.
      const lockedByCore = new Map(ctx.operation.lock ? touched.map((zaak) => [String(zaak.uuid), zaak]) : []);
      const uuids = [...new Set([...touched.map((z) => String(z.uuid)), ...also])].sort();
      for (const uuid of uuids) {
        const now = lockedByCore.get(uuid) ?? (await ctx.registry.zaken.find(ctx, uuid, { lock: true }));
        if (!now) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
        if (uuid === ctx.zaak?.uuid) locked.set(ctx, now);
        if (touched.some((zaak) => zaak.uuid === uuid)) await refuseIfClosed(ctx, now);
      }
      if (isStatusCreate(ctx) && (await closesZaak(ctx))) await checkClosing(ctx, locked.get(ctx)!);
    },

    async afterWrite(ctx: RequestContext): Promise<void> {
      if (!isStatusCreate(ctx)) return;
      const zaak = locked.get(ctx)!;
      if (await closesZaak(ctx)) {
        // The date as the client gave it, in the client's own offset (as Open Zaak does).
        const einddatum = String(ctx.data!.datumStatusGezet).slice(0, 10);
        await ctx.registry.zaken.close(ctx, { zaak, status: ctx.result!, einddatum });
      } else if (zaak.einddatum) {
        await ctx.registry.zaken.reopen(ctx, { zaak, status: ctx.result! });
      }
    },
  };
}
