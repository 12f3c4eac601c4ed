import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { addFormats } from './validate.js';
import { closest } from '../suggest.js';

/**
 * Validation of settings (the config file, configured applications): read by operators and
 * developers, so the messages are ajv's English ones, under JSON Pointer paths. API input has its
 * own validator with the Dutch ZGW messages (`validate.ts`).
 */
// verbose: an unknown key's message lists the keys its object allows.
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
addFormats(ajv);
const compiled = new WeakMap<object, ValidateFunction>();

/** One problem of a settings value: where (a JSON Pointer, `/clients/zac`) and what. */
export interface SettingsProblem {
  path: string;
  message: string;
}

function describe(error: ErrorObject): SettingsProblem {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
    case 'additionalProperties':
      return { path: `${error.instancePath}/${String(params.additionalProperty)}`, message: unknownKey(String(params.additionalProperty), error.parentSchema) };
    case 'enum':
      return { path: error.instancePath, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { path: error.instancePath, message: error.message ?? 'is invalid' };
  }
}

/** `is not a known key (did you mean …?); allowed: …`, from the keys the object's schema names. */
function unknownKey(key: string, schema: unknown): string {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const allowed = Object.keys(properties ?? {}).filter((name) => name !== '$schema');
  if (!allowed.length) return 'is not a known key';
  const suggestion = closest(key, allowed);
  return `is not a known key${suggestion ? ` (did you mean ${suggestion}?)` : ''}; allowed: ${allowed.join(', ')}`;
}

/** Every problem of `value` against `schema` (empty when valid); paths start with `base`. */
export function settingsProblems(schema: object, value: unknown, base = ''): SettingsProblem[] {
  let check = compiled.get(schema);
  if (!check) {
    check = ajv.compile(schema);
    compiled.set(schema, check);
  }
  if (check(value)) return [];
  // An `if` failure only repeats what its `then` branch reported.
  return (check.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => {
    const problem = describe(error);
    return { ...problem, path: base + problem.path || '/' };
  });
}

/** `  - /path: message` lines, for an error message or a CLI report. */
export function formatProblems(problems: readonly SettingsProblem[]): string {
  return problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n');
}
