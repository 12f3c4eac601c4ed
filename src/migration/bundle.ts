import type { RewriteRule, ZaakBundle, ZaakRecordKind } from '../plugin-types.js';
export type { RewriteRule, ZaakBundle };

/** The lists of a bundle and the record kind each holds, in the order they are written (rollen before the statussen that name them). */
export const BUNDLE_LISTS: readonly (readonly [key: string, kind: ZaakRecordKind])[] = [
  ['rollen', 'rol'],
  ['statussen', 'status'],
  ['zaakobjecten', 'zaakobject'],
  ['zaakinformatieobjecten', 'zaakinformatieobject'],
  ['zaakeigenschappen', 'zaakeigenschap'],
  ['klantcontacten', 'klantcontact'],
  ['zaakbesluiten', 'zaakbesluit'],
  ['zaakcontactmomenten', 'zaakcontactmoment'],
  ['zaakverzoeken', 'zaakverzoek'],
  ['zaaknotities', 'zaaknotitie'],
];

/** The records of a bundle by kind: its lists and its resultaat. */
export function recordsOf(bundle: ZaakBundle): [kind: ZaakRecordKind, records: Record<string, unknown>[]][] {
  const lists = BUNDLE_LISTS.map(([key, kind]) => [kind, (bundle[key] as Record<string, unknown>[] | undefined) ?? []] as [ZaakRecordKind, Record<string, unknown>[]]);
  return [...lists, ['resultaat', bundle.resultaat ? [bundle.resultaat] : []]];
}

/** Every kind a bundle counts, the zaak and its audit trail included. */
export const COUNTED_KINDS = ['zaak', ...BUNDLE_LISTS.map(([, kind]) => kind), 'resultaat', 'audittrail'] as const;

/** `from=to` as a command line gives it; both must be http(s) URLs. */
export function parseRewrite(text: string): RewriteRule {
  const at = text.indexOf('=');
  const from = at > 0 ? text.slice(0, at) : '';
  const to = at > 0 ? text.slice(at + 1) : '';
  if (!/^https?:\/\/./.test(from) || !/^https?:\/\/./.test(to)) throw new Error(`--rewrite ${JSON.stringify(text)}: give <from>=<to>, two http(s) URL prefixes`);
  return { from, to };
}

/** The rules the other way round: what reads the imported zaken back as the source showed them. */
export const reversed = (rules: readonly RewriteRule[]): RewriteRule[] => rules.map(({ from, to }) => ({ from: to, to: from }));

/**
 * `value` with every string that starts with a rule's `from` rewritten (the first matching rule,
 * prefix only, never a substring elsewhere), through objects and arrays (audit `wijzigingen` too).
 * Returns the same object when nothing changed.
 */
export function rewrite<T>(value: T, rules: readonly RewriteRule[]): T {
  if (!rules.length) return value;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') {
      for (const rule of rules) if (v.startsWith(rule.from)) return rule.to + v.slice(rule.from.length);
      return v;
    }
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) out[key] = visit(inner);
      return out;
    }
    return v;
  };
  return visit(value) as T;
}

/** The uuid at the end of a resource URL (any RFC 4122 version, lower-cased), or undefined. */
export function uuidOfUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const last = url.replace(/\/+$/, '').split('/').pop() ?? '';
  return UUID.test(last) ? last.toLowerCase() : undefined;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
