import type { JsonSchema } from '../operation.js';

/**
 * RSIN/BSN check as ZGW implementations do it: nine digits passing the 11-test
 * (https://nl.wikipedia.org/wiki/Burgerservicenummer#11-proef). Codes match vng-api-common.
 */
export function rsinError(value: string): { code: string; reason: string } | undefined {
  if (!/^\d*$/.test(value)) return { code: 'only-digits', reason: 'Voer een numerieke waarde in.' };
  if (value.length !== 9) return { code: 'invalid-length', reason: 'Waarde moet 9 karakters lang zijn.' };
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(value[i]) * (9 - i);
  sum -= Number(value[8]);
  if (sum % 11 !== 0) return { code: 'invalid', reason: 'Onjuist RSIN.' };
  return undefined;
}

/** A string field holding an RSIN: at most nine characters, checked by `rsinError` (keyword `x-rsin`). */
export const rsinSchema = (description: string): JsonSchema => ({ type: 'string', maxLength: 9, 'x-rsin': true, description });
