import type { SettingsProblem } from '../schema/settings.js';

/** RFC 7518 §3.2: an HS256 key has at least as many bits as the hash. */
export const MIN_SECRET_BYTES = 32;

/**
 * The problems of the client secrets (`{ clientId: secret }`), the same from the config file and
 * from code: a client without a secret (an unset environment variable), a secret too short for
 * HS256 unless weak secrets are allowed. `base` is the JSON Pointer of the secrets.
 */
export function secretProblems(clients: Record<string, unknown>, base: string, allowWeakSecrets = false): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const [clientId, secret] of Object.entries(clients)) {
    const path = `${base}/${clientId.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (typeof secret !== 'string' || !secret) {
      problems.push({ path, message: `has no secret (${secret === '' ? 'an empty string' : String(secret)}): is the environment variable that holds it set?` });
      continue;
    }
    const bytes = Buffer.byteLength(secret);
    if (bytes < MIN_SECRET_BYTES && !allowWeakSecrets) {
      problems.push({ path, message: `the secret is ${bytes} bytes; HS256 secrets need at least ${MIN_SECRET_BYTES} (or set allowWeakSecrets: true for a test environment)` });
    }
  }
  return problems;
}
