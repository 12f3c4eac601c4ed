import type { Knex } from 'knex';
import type { Principal } from '../../plugin.js';
import { ProblemError } from '../../problem.js';
import { vertrouwelijkheidRank } from './enums.js';
import type { AccessSubject } from '../../plugin-types.js';
export type { AccessSubject };

export const ZAKEN_LEZEN = 'zaken.lezen';

/**
 * The scopes a principal holds for one zaak: those of its authorizations for the zaak's type whose
 * maximum confidentiality is at least the zaak's (zrc-006). `'all'` for heeftAlleAutorisaties.
 */
export function grantedScopes(principal: Principal, subject: AccessSubject): Set<string> | 'all' {
  if (principal.allAuthorizations) return 'all';
  const rank = vertrouwelijkheidRank(subject.vertrouwelijkheidaanduiding);
  const scopes = new Set<string>();
  for (const authorization of principal.authorizations) {
    if (authorization.zaaktype !== subject.zaaktype) continue;
    if (vertrouwelijkheidRank(authorization.maxVertrouwelijkheidaanduiding) < rank) continue;
    for (const scope of authorization.scopes) scopes.add(scope);
  }
  return scopes;
}

export function hasAnyScope(principal: Principal, subject: AccessSubject, scopes: readonly string[]): boolean {
  const granted = grantedScopes(principal, subject);
  return granted === 'all' || scopes.some((scope) => granted.has(scope));
}

const denied = () => new ProblemError('permission_denied', { detail: 'Je hebt geen toestemming om deze actie uit te voeren.' });

/**
 * Refuses (403) unless the principal holds one of `scopes` for every subject; without subjects
 * (lists, searches) one of them for any zaaktype is enough, the rows are filtered in SQL.
 */
export function assertAccess(principal: Principal, scopes: readonly string[], subjects: readonly AccessSubject[]): void {
  if (principal.allAuthorizations) return;
  if (!subjects.length) {
    if (!principal.authorizations.some((a) => scopes.some((scope) => a.scopes.includes(scope)))) throw denied();
    return;
  }
  for (const subject of subjects) if (!hasAnyScope(principal, subject, scopes)) throw denied();
}

/**
 * The zaaktypen a principal may read with `scope`, each with the highest confidentiality rank its
 * authorizations for that type allow; `undefined` for heeftAlleAutorisaties (no restriction).
 */
export function authorizedZaaktypen(principal: Principal | undefined, scope = ZAKEN_LEZEN): ReadonlyMap<string, number> | undefined {
  if (principal?.allAuthorizations) return undefined;
  // A list asks several times per request (its page, its count): derived once per principal and scope.
  const known = principal && derived.get(principal)?.get(scope);
  if (known) return known;
  const zaaktypen = new Map<string, number>();
  for (const authorization of principal?.authorizations ?? []) {
    if (!authorization.scopes.includes(scope)) continue;
    const rank = vertrouwelijkheidRank(authorization.maxVertrouwelijkheidaanduiding);
    if (rank > (zaaktypen.get(authorization.zaaktype) ?? -1)) zaaktypen.set(authorization.zaaktype, rank);
  }
  if (principal) derived.set(principal, (derived.get(principal) ?? new Map()).set(scope, zaaktypen));
  return zaaktypen;
}

/** Per principal (one per request), per scope: `authorizedZaaktypen`. */
const derived = new WeakMap<Principal, Map<string, ReadonlyMap<string, number>>>();

/**
 * A confidentiality rank as SQL text: written into a statement, not bound. One of nine integers, it
 * keeps a prepared statement's generic plan the same as its custom ones (see `LITERAL_OFFSET_PAGES`).
 */
export function rankLiteral(rank: number): string {
  if (!Number.isInteger(rank)) throw new TypeError(`Geen vertrouwelijkheidsniveau: ${rank}`);
  return String(rank);
}

/**
 * Data filtering (zrc-006) in SQL: only zaken whose zaaktype the principal is authorized for with
 * `scope`, at most as confidential as that authorization allows. Per confidentiality level one
 * condition, its zaaktypen one bound array: the text depends on the levels alone, however many
 * zaaktypen (not a list of values, nor a condition per authorization). In a plan made for the values
 * (an unnamed statement) PostgreSQL hashes each array once and estimates from the zaaktypen's
 * statistics, so a page walks the id index and stops at its `LIMIT` when the zaken are common, and
 * reads the zaaktypen's own when they are few. The query must have the `zaak` table in scope (as
 * `zaakTable` when aliased).
 *
 * With `literal`, the arrays are written into the text (escaped), for a named statement per
 * application: planned once per connection with its values known, where planning 200 bound zaaktypen
 * anew costs more than running the page.
 */
export function restrictToAuthorized(
  query: Knex.QueryBuilder,
  principal: Principal | undefined,
  scope = ZAKEN_LEZEN,
  zaakTable = 'zaak',
  { literal = false } = {},
): void {
  const zaaktypen = authorizedZaaktypen(principal, scope);
  if (!zaaktypen) return;
  if (!zaaktypen.size) {
    query.whereRaw('false');
    return;
  }
  const byRank = zaaktypenByRank(zaaktypen);
  const table = `"${zaakTable.replace(/"/g, '""')}"`;
  const conditions = [...byRank].map(([rank, types]) => `(${table}.vertrouwelijkheid_rank <= ${rankLiteral(rank)} and ${table}.zaaktype = any(${literal ? textArrayLiteral(types) : '?::text[]'}))`);
  query.whereRaw(`(${conditions.join(' or ')})`, literal ? [] : [...byRank.values()]);
}

/** The zaaktypen of `authorized` grouped by their highest rank, in rank order. */
export function zaaktypenByRank(authorized: ReadonlyMap<string, number>): Map<number, string[]> {
  const byRank = new Map<number, string[]>();
  for (const [zaaktype, rank] of authorized) {
    const zaaktypen = byRank.get(rank);
    if (zaaktypen) zaaktypen.push(zaaktype);
    else byRank.set(rank, [zaaktype]);
  }
  return new Map([...byRank].sort(([a], [b]) => a - b));
}

/**
 * A text as an SQL string literal that a knex raw text can carry: knex reads every `?` as a binding,
 * so a text with a `?` (a URL's query) or a backslash is written as a Unicode-escaped literal, `?` as
 * `\003F`.
 */
export function textLiteral(text: string): string {
  const quoted = text.replace(/'/g, "''");
  return /[?\\]/.test(text) ? `U&'${quoted.replace(/\\/g, '\\\\').replace(/\?/g, '\\003F')}'` : `'${quoted}'`;
}

/** Texts as a `text[]` SQL expression of literals: a constant the planner hashes. */
export function textArrayLiteral(texts: readonly string[]): string {
  return `array[${texts.map(textLiteral).join(', ')}]::text[]`;
}
