import { ProblemError, grantedScopes, validationError, type AccessSubject, type InvalidParam, type RequestContext } from '../../src/plugin-api.js';

export const AANMAKEN = 'zaken.aanmaken';
export const BIJWERKEN = 'zaken.bijwerken';
export const GEFORCEERD = 'zaken.geforceerd-bijwerken';
export const STATUSSEN_TOEVOEGEN = 'zaken.statussen.toevoegen';
export const HEROPENEN = 'zaken.heropenen';

/** The second half of the scope expressions (the first is the operation's `scopes`, checked by the core). */
export const REGISTREREN_ALSO = [BIJWERKEN, GEFORCEERD];
export const UPDATE_ALSO = [AANMAKEN, STATUSSEN_TOEVOEGEN, HEROPENEN];

const denied = (detail?: string) => new ProblemError('permission_denied', detail ? { detail } : {});

/** The client's scopes for the zaak: a test per scope. */
function scopesFor(ctx: RequestContext, zaak: AccessSubject): (scope: string) => boolean {
  if (!ctx.principal) return () => true;
  const granted = grantedScopes(ctx.principal, zaak);
  return (scope) => granted === 'all' || granted.has(scope);
}

/** One of `scopes` for the zaak, else 403: the part of the scope expression the core's check does not cover. */
export function requireOneOf(ctx: RequestContext, zaak: AccessSubject, scopes: readonly string[]): void {
  const has = scopesFor(ctx, zaak);
  if (!scopes.some(has)) throw denied();
}

/**
 * Before anything is written to a zaak that may be closed, in Open Zaak's order and with its messages:
 * changing a closed zaak needs `zaken.geforceerd-bijwerken`; a second status needs
 * `zaken.statussen.toevoegen` or `zaken.heropenen`; a status on a closed zaak needs `zaken.heropenen`.
 */
export async function checkZaakState(ctx: RequestContext, zaak: Record<string, unknown>): Promise<void> {
  const has = scopesFor(ctx, zaak as unknown as AccessSubject);
  const closed = !!zaak.einddatum;
  if (closed && !has(GEFORCEERD)) throw denied('Je mag geen gegevens aanpassen van een gesloten zaak.');
  if (!has(STATUSSEN_TOEVOEGEN) && !has(HEROPENEN) && (await ctx.registry.zaken.records(ctx, 'status', String(zaak.uuid))).length) {
    throw denied("Met de 'zaken.aanmaken' scope mag je slechts 1 status zetten");
  }
  if (closed && !has(HEROPENEN)) throw denied('Het heropenen van een gesloten zaak is niet toegestaan zonder de scope zaken.heropenen');
}

/** The parts a handeling needs: each one missing is `<part>` / `required`, all at once. */
export function requireParts(body: Record<string, unknown> | undefined, parts: readonly string[]): void {
  const missing = parts.filter((part) => body?.[part] === undefined || body[part] === null);
  if (missing.length) throw validationError(missing.map((name) => ({ name, code: 'required', reason: 'Dit veld is vereist.' })));
}

/**
 * Whether the statustype is the end status of the zaaktype (the highest volgnummer of its statustypen);
 * undefined when that cannot be told here (a statustype that cannot be fetched or is not the
 * zaaktype's): the status part answers for it then, as a separate call would.
 */
export async function isEindstatus(ctx: RequestContext, zaaktypeUrl: unknown, statustypeUrl: unknown): Promise<boolean | undefined> {
  if (typeof zaaktypeUrl !== 'string' || typeof statustypeUrl !== 'string') return undefined;
  const { catalog } = ctx.registry;
  try {
    const [statustype, zaaktype] = await Promise.all([catalog.get('statustype', statustypeUrl), catalog.zaaktype(zaaktypeUrl)]);
    if (!(zaaktype.statustypen ?? []).includes(statustypeUrl)) return undefined;
    const volgnummers = (await catalog.listFor('statustype', zaaktype)).map((s) => Number(s.volgnummer));
    return Number(statustype.volgnummer) === Math.max(...volgnummers);
  } catch {
    return undefined;
  }
}

/** The status rule of a handeling: an eindstatus required, or not allowed, under `status.nonFieldErrors`. */
export async function statusRule(
  ctx: RequestContext,
  zaaktype: unknown,
  status: Record<string, unknown> | undefined,
  rule: 'eindstatus-required' | 'eindstatus-not-allowed' | 'resultaat-does-not-exist',
): Promise<InvalidParam[]> {
  const eind = await isEindstatus(ctx, zaaktype, status?.statustype);
  if (eind === undefined) return [];
  if (rule === 'eindstatus-required' && !eind) {
    return [{ name: 'status.nonFieldErrors', code: rule, reason: 'De status moet de eindstatus van het zaaktype zijn: deze handeling sluit de zaak af.' }];
  }
  if (rule === 'eindstatus-not-allowed' && eind) {
    return [{ name: 'status.nonFieldErrors', code: rule, reason: 'Deze handeling zet geen eindstatus; sluit de zaak af met zaak_afsluiten.' }];
  }
  if (rule === 'resultaat-does-not-exist' && eind) {
    return [{ name: 'status.nonFieldErrors', code: rule, reason: 'Om een zaak af te sluiten moet een resultaat toegekend zijn; een zaak wordt niet afgesloten geregistreerd.' }];
  }
  return [];
}
