import type { InvalidParam } from '../problem.js';

/** How deep objects and arrays may nest in a request body; the body itself is level 1 (docs/api.md, docs/errors.md). */
export const MAX_JSON_DEPTH = 32;

/**
 * The path (keys and indexes) to the first container nested deeper than `limit`, or undefined.
 * Iterative, and it stops at the limit: a body of any depth costs no stack and at most its own size.
 */
export function tooDeep(value: unknown, limit: number): string[] | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  while (stack.length) {
    const { value: current, path } = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= limit) return path;
    for (const [key, child] of Object.entries(current)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

// U+0000 cannot be stored in a PostgreSQL text or jsonb value; a lone surrogate is no Unicode character
// and cannot be written as UTF-8 (the driver would silently store U+FFFD instead).
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function characterError(text: string, name: string): InvalidParam | undefined {
  if (NUL.test(text)) return { name, code: 'null_characters_not_allowed', reason: 'Null-karakters zijn niet toegestaan.' };
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) {
    const codePoint = surrogate[0].charCodeAt(0).toString(16).toUpperCase();
    return { name, code: 'surrogate_characters_not_allowed', reason: `Surrogaat-karakters zijn niet toegestaan: U+${codePoint}.` };
  }
  return undefined;
}

/**
 * Every string (and object key) in `value` that holds a character the registry cannot store: U+0000
 * (`null_characters_not_allowed`) or a lone surrogate (`surrogate_characters_not_allowed`), the codes
 * Django REST framework answers with. Named as validation errors are: `kenmerken.0.kenmerk`.
 * Iterative; bodies are depth-limited before they get here.
 */
export function characterErrors(value: unknown, prefix = ''): InvalidParam[] {
  const errors: InvalidParam[] = [];
  // A key that holds such a character is reported in place of its value.
  const stack: ({ value: unknown; path: string[] } | { error: InvalidParam })[] = [{ value, path: prefix ? [prefix] : [] }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('error' in item) {
      errors.push(item.error);
      continue;
    }
    const { value: current, path } = item;
    if (typeof current === 'string') {
      const error = characterError(current, path.join('.') || 'nonFieldErrors');
      if (error) errors.push(error);
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      // Reversed onto the stack: reported in the body's order.
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const childPath = [...path, key];
        const keyError = Array.isArray(current) ? undefined : characterError(key, childPath.join('.'));
        stack.push(keyError ? { error: keyError } : { value: child, path: childPath });
      }
    }
  }
  return errors;
}
