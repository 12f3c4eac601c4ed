import type { InvalidParam } from '../../src/plugin-api.js';

/**
 * How a zaakeigenschap's `waarde` is held against its eigenschap's `specificatie` in the Catalogi
 * API (ImZTC EigenschapSpecificatie): `formaat` tekst, getal, datum or datum_tijd; `lengte` per
 * formaat; `waardenverzameling`. `kardinaliteit` is about the zaak, not the value: `maxOccurrences`.
 * What the catalog leaves out or writes in a form the standard does not know is not checked: only a
 * value the specificatie clearly rules out is a mismatch.
 */

/** The codes of a mismatch, as `invalidParams[].code` (reject) and in the `X-Warning` text (warn). */
export const MISMATCH = {
  formaat: 'specificatie-formaat',
  lengte: 'specificatie-lengte',
  waardenverzameling: 'specificatie-waardenverzameling',
  kardinaliteit: 'specificatie-kardinaliteit',
} as const;

const mismatch = (code: string, reason: string): InvalidParam => ({ name: 'waarde', code, reason });

function isRecord(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** The catalog writes numbers in `lengte` and `kardinaliteit` as strings; some write them as numbers. */
function wholeNumber(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** `lengte` of formaat getal: `n` or `n,m`, n digits before the decimal separator and m after. */
function numberLengte(value: unknown): { digits: number; decimals: number } | undefined {
  const match = /^(\d{1,4})(?:[,.](\d{1,4}))?$/.exec(typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '');
  return match ? { digits: Number(match[1]), decimals: Number(match[2] ?? 0) } : undefined;
}

// A getal: an optional sign, digits, and decimals after a point or a comma (the Dutch notation).
const NUMBER = /^[+-]?(\d+)(?:[.,](\d+))?$/;

function isDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

// datum: the Catalogi API's jjjjmmdd, or ISO 8601 jjjj-mm-dd as the ZGW APIs write dates elsewhere.
const DATE = /^(\d{4})-?(\d{2})-?(\d{2})$/;
// datum_tijd: jjjjmmdduummss, or an ISO 8601 date-time with optional seconds, fraction and offset.
const COMPACT_DATE_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?$/;

function isDateString(value: string): boolean {
  const match = DATE.exec(value);
  // Both separators or neither: 2024-0301 is no date.
  return !!match && (value.length === 8 || value.length === 10) && isDate(+match[1], +match[2], +match[3]);
}

function isDateTimeString(value: string): boolean {
  const match = COMPACT_DATE_TIME.exec(value) ?? ISO_DATE_TIME.exec(value);
  if (!match) return false;
  const [, year, month, day, hour, minute, second = '0', offsetHours = '0', offsetMinutes = '0'] = match;
  return isDate(+year, +month, +day) && +hour <= 23 && +minute <= 59 && +second <= 59 && +offsetHours <= 23 && +offsetMinutes <= 59;
}

function formaatMismatches(specificatie: Record<string, unknown>, waarde: string): InvalidParam[] {
  switch (specificatie.formaat) {
    case 'tekst': {
      const lengte = wholeNumber(specificatie.lengte);
      // Characters as people count them: code points, not UTF-16 units.
      const length = [...waarde].length;
      return lengte !== undefined && length > lengte ? [mismatch(MISMATCH.lengte, `De waarde is ${length} tekens lang; de specificatie staat er ${lengte} toe.`)] : [];
    }
    case 'getal': {
      const match = NUMBER.exec(waarde);
      if (!match) return [mismatch(MISMATCH.formaat, 'De waarde is geen getal (formaat getal: cijfers, met een punt of komma voor decimalen).')];
      const lengte = numberLengte(specificatie.lengte);
      if (!lengte) return [];
      // Significant digits: leading zeros of the whole part and trailing zeros of the decimals do not count.
      const digits = match[1].replace(/^0+(?=\d)/, '').length;
      const decimals = (match[2] ?? '').replace(/0+$/, '').length;
      return digits > lengte.digits || decimals > lengte.decimals
        ? [mismatch(MISMATCH.lengte, `Het getal heeft ${digits} cijfers voor en ${decimals} na de komma; de specificatie staat er ${lengte.digits} en ${lengte.decimals} toe.`)]
        : [];
    }
    case 'datum':
      return isDateString(waarde) ? [] : [mismatch(MISMATCH.formaat, 'De waarde is geen datum (formaat datum: jjjjmmdd of jjjj-mm-dd).')];
    case 'datum_tijd':
      return isDateTimeString(waarde)
        ? []
        : [mismatch(MISMATCH.formaat, 'De waarde is geen datum en tijd (formaat datum_tijd: jjjjmmdduummss of ISO 8601, jjjj-mm-ddTuu:mm:ss).')];
    default:
      return [];
  }
}

/** What is wrong with `waarde` for an eigenschap with this `specificatie` (none when it has none). */
export function waardeMismatches(specificatie: unknown, waarde: string): InvalidParam[] {
  if (!isRecord(specificatie)) return [];
  const errors = formaatMismatches(specificatie, waarde);
  const allowed = Array.isArray(specificatie.waardenverzameling) ? specificatie.waardenverzameling.filter((v): v is string => typeof v === 'string') : [];
  if (allowed.length && !allowed.includes(waarde)) {
    errors.push(mismatch(MISMATCH.waardenverzameling, `De waarde is niet een van de ${allowed.length} waarden van de waardenverzameling.`));
  }
  return errors;
}

/** How many zaakeigenschappen of this eigenschap a zaak may have: `kardinaliteit`, `N` (or none) for any number. */
export function maxOccurrences(specificatie: unknown): number | undefined {
  if (!isRecord(specificatie)) return undefined;
  const kardinaliteit = wholeNumber(specificatie.kardinaliteit);
  return kardinaliteit !== undefined && kardinaliteit > 0 ? kardinaliteit : undefined;
}

export function kardinaliteitMismatch(max: number, occurrences: number): InvalidParam {
  return mismatch(MISMATCH.kardinaliteit, `De zaak krijgt hiermee ${occurrences} waarden van deze eigenschap; de specificatie staat er ${max} toe.`);
}

/**
 * The `X-Warning` header: one RFC 7234 warning-value per mismatch (`199 - "<code>: <reason>"`,
 * comma-separated), printable ASCII only so every HTTP stack passes it on unchanged.
 */
export function warningHeader(mismatches: readonly InvalidParam[]): string {
  const quoted = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&');
  return mismatches.map((m) => `199 - "${quoted(`${m.code}: ${m.reason}`)}"`).join(', ');
}
