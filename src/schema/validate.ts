import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as addFormatsModule from 'ajv-formats';
import type { InvalidParam } from '../problem.js';
import type { JsonSchema } from '../operation.js';
import { rsinError } from './rsin.js';

// ajv-formats is CommonJS: under ESM its function arrives as `default` (twice wrapped under tsx).
type AddFormats = (ajv: Ajv) => Ajv;
const unwrap = (m: unknown): AddFormats => (typeof m === 'function' ? (m as AddFormats) : unwrap((m as { default: unknown }).default));
export const addFormats = unwrap(addFormatsModule);

/**
 * One ajv instance for every schema. The schemas are OpenAPI 3.0 (`nullable`, `readOnly`,
 * `example`), so strict mode is off; compiled validators are cached per schema object.
 */
// Contract patterns are Python regular expressions (`[a-z\_]+`): no unicode flag, which rejects such escapes.
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, verbose: true, unicodeRegExp: false });
addFormats(ajv);
/**
 * A real calendar date (2024-02-30 is not), so the database never sees one it refuses. Year 0000 is
 * none either: PostgreSQL counts 1 BC, 1 AD, without a year 0.
 */
function calendarDate(y: string, mo: string, d: string): boolean {
  const date = new Date(Date.UTC(+y, +mo - 1, +d));
  return +y > 0 && date.getUTCMonth() === +mo - 1 && date.getUTCDate() === +d;
}
ajv.addFormat('date', (value: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return !!match && calendarDate(match[1], match[2], match[3]);
});
// Existing ZGW clients send date-times with and without an offset; both are valid input.
ajv.addFormat('date-time', (value: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(:(\d{2})(\.\d+)?)?(Z|[+-](\d{2}):?(\d{2}))?$/i.exec(value);
  if (!match) return false;
  const [, y, mo, d, h, mi, , s = '0', , , oh = '0', om = '0'] = match;
  // And a real clock time (25:61 is not), at an offset PostgreSQL stores (at most 15:59 either way).
  return calendarDate(y, mo, d) && +h < 24 && +mi < 60 && +s < 60 && +oh < 16 && +om < 60;
});
// URL fields may be blank (`""`, as in DRF); required ones say `minLength: 1`. ZGW URLs are http(s).
ajv.addFormat('uri', (value: string) => value === '' || /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(value));
ajv.addKeyword({
  keyword: 'x-rsin',
  type: 'string',
  errors: true,
  validate: function rsin(enabled: boolean, value: string) {
    const error = enabled ? rsinError(value) : undefined;
    if (!error) return true;
    (rsin as unknown as { errors: Partial<ErrorObject>[] }).errors = [
      { keyword: 'x-rsin', message: error.reason, params: { code: error.code } },
    ];
    return false;
  },
});

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Validates a value; returns ZGW invalidParams with dotted names under `prefix` (empty when valid). */
export function validate(schema: JsonSchema, value: unknown, prefix = ''): InvalidParam[] {
  const check = validatorFor(schema);
  if (check(value)) return [];
  const seen = new Set<string>();
  const params: InvalidParam[] = [];
  for (const error of check.errors ?? []) {
    const param = toInvalidParam(error, prefix);
    if (!param) continue;
    const key = `${param.name}\u0000${param.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    params.push(param);
  }
  return params;
}

function joinName(prefix: string, instancePath: string, extra?: string): string {
  const parts = [prefix, ...instancePath.split('/').slice(1).map(unescapePointer), extra].filter(
    (p): p is string => p !== undefined && p !== '',
  );
  return parts.join('.') || 'nonFieldErrors';
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Maps an ajv error to the DRF-style codes ZGW clients check (`required`, `max_length`, ...). */
function toInvalidParam(error: ErrorObject, prefix: string): InvalidParam | undefined {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { name: joinName(prefix, error.instancePath, String(p.missingProperty)), code: 'required', reason: 'Dit veld is vereist.' };
    case 'type':
      if (error.data === null) {
        return { name: joinName(prefix, error.instancePath), code: 'null', reason: 'Dit veld mag niet leeg (null) zijn.' };
      }
      return { name: joinName(prefix, error.instancePath), code: 'invalid', reason: `Verwacht type ${String(p.type)}.` };
    case 'maxLength':
      return { name: joinName(prefix, error.instancePath), code: 'max_length', reason: `Zorg ervoor dat dit veld niet meer dan ${String(p.limit)} karakters bevat.` };
    case 'minLength':
      return error.data === ''
        ? { name: joinName(prefix, error.instancePath), code: 'blank', reason: 'Dit veld mag niet leeg zijn.' }
        : { name: joinName(prefix, error.instancePath), code: 'min_length', reason: `Zorg ervoor dat dit veld minimaal ${String(p.limit)} karakters bevat.` };
    case 'enum':
      return { name: joinName(prefix, error.instancePath), code: 'invalid_choice', reason: `"${String(error.data)}" is een ongeldige keuze.` };
    case 'maxItems':
      return { name: joinName(prefix, error.instancePath), code: 'max_length', reason: `Maximaal ${String(p.limit)} elementen.` };
    case 'minItems':
      return { name: joinName(prefix, error.instancePath), code: 'min_length', reason: `Minimaal ${String(p.limit)} elementen.` };
    case 'uniqueItems':
      return { name: joinName(prefix, error.instancePath), code: 'unique', reason: 'Elementen moeten uniek zijn.' };
    case 'minimum':
      return { name: joinName(prefix, error.instancePath), code: 'min_value', reason: `Waarde moet minimaal ${String(p.limit)} zijn.` };
    case 'maximum':
      return { name: joinName(prefix, error.instancePath), code: 'max_value', reason: `Waarde mag maximaal ${String(p.limit)} zijn.` };
    case 'additionalProperties':
      return { name: joinName(prefix, error.instancePath, String(p.additionalProperty)), code: 'unknown', reason: 'Onbekend veld.' };
    case 'x-rsin':
      return { name: joinName(prefix, error.instancePath), code: String(p.code), reason: error.message ?? 'Ongeldig RSIN.' };
    case 'format':
      return { name: joinName(prefix, error.instancePath), code: 'invalid', reason: `Ongeldige waarde voor formaat ${String(p.format)}.` };
    case 'pattern':
      return { name: joinName(prefix, error.instancePath), code: 'invalid', reason: `Waarde voldoet niet aan het patroon ${String(p.pattern)}.` };
    default:
      // ajv's own messages are English; the API answers in Dutch.
      return { name: joinName(prefix, error.instancePath), code: 'invalid', reason: 'Ongeldige waarde.' };
  }
}

/**
 * The request-body variant of a resource schema: read-only properties removed (clients may send
 * them back unchanged; they are ignored), and for partial updates no top-level `required`.
 * `extra` adds properties the schema does not declare itself (a polymorphic field's variants).
 */
export function requestSchema(schema: JsonSchema, options: { partial?: boolean; extra?: Record<string, JsonSchema> } = {}): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  const writable = { ...Object.fromEntries(Object.entries(properties).filter(([, s]) => !s.readOnly)), ...options.extra };
  const required = ((schema.required as string[] | undefined) ?? []).filter((name) => name in writable);
  const result: JsonSchema = { ...schema, properties: writable };
  delete result.required;
  if (!options.partial && required.length) result.required = required;
  else if (options.partial) requiredOfPartial.set(result, required);
  return result;
}

/** What a partial-update schema's resource requires: a `null` there is refused, never taken as not sent. */
const requiredOfPartial = new WeakMap<JsonSchema, string[]>();

/** Keeps only the keys a schema declares (unknown and read-only input is ignored, as in DRF). */
/**
 * Clients built against other ZGW registries send `null` for an optional field they leave unset,
 * also where the contract declares a non-nullable string. Such a `null` counts as not sent (the
 * field's default on create, unchanged on PATCH). Fields that are nullable, required or of a schema
 * not visible here are left to validation.
 */
export function dropUnsetNulls(schema: JsonSchema, body: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? requiredOfPartial.get(schema) ?? []);
  const unset = (key: string) => {
    const property = properties[key];
    return !!property && !required.has(key) && property.nullable !== true && !('$ref' in property || 'allOf' in property || 'anyOf' in property || 'oneOf' in property);
  };
  return Object.fromEntries(Object.entries(body).filter(([key, value]) => !(value === null && unset(key))));
}

export function pickDeclared(schema: JsonSchema, body: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown>;
  return Object.fromEntries(Object.entries(body).filter(([key]) => Object.hasOwn(properties, key)));
}
