import { randomUUID } from 'node:crypto';
import type { InvalidParam } from './plugin-types.js';
export type { InvalidParam };

/**
 * The error catalogue: every top-level problem `code` the core can answer with, its HTTP status and
 * title. Plugins add their own with `defineProblem` (during `setup`), so one table documents them all.
 * Titles follow the Dutch wording existing ZGW clients see from other implementations.
 */
const catalogue = new Map<string, ProblemDefinition>();

export interface ProblemDefinition {
  code: string;
  status: number;
  title: string;
  /** Who defined it: `core` or a plugin name. */
  source: string;
}

export function defineProblem(code: string, status: number, title: string, source = 'core'): void {
  const existing = catalogue.get(code);
  if (existing && (existing.status !== status || existing.source !== source)) {
    throw new Error(`problem code "${code}" is already defined by ${existing.source} with status ${existing.status}`);
  }
  catalogue.set(code, { code, status, title, source });
}

export function problemCatalogue(): ProblemDefinition[] {
  return [...catalogue.values()];
}

defineProblem('invalid', 400, 'Ongeldige invoer.');
defineProblem('parse_error', 400, 'Het verzoek is onjuist opgemaakt.');
defineProblem('not_authenticated', 401, 'Authenticatiegegevens zijn niet opgegeven.');
defineProblem('conflict', 409, 'De resource is intussen gewijzigd.');
defineProblem('permission_denied', 403, 'Je hebt geen toestemming om deze actie uit te voeren.');
defineProblem('not_found', 404, 'Niet gevonden.');
defineProblem('method_not_allowed', 405, 'Methode niet toegestaan.');
defineProblem('not_acceptable', 406, 'Kan niet voldoen aan de opgegeven Accept header.');
defineProblem('payload_too_large', 413, 'Verzoek is te groot.');
defineProblem('unsupported_media_type', 415, 'Niet-ondersteund mediatype in verzoek.');
defineProblem('error', 500, 'Er is een serverfout opgetreden.');
defineProblem('bad_gateway', 502, 'Een andere registratie antwoordde niet zoals verwacht.');
defineProblem('unavailable', 503, 'De dienst is tijdelijk niet beschikbaar.');
// ZGW JWT failures: the codes Open Zaak and vng-api-common use, but with 401 where they answer 403
// (gemma-zaken#1495, open-zaak#291); docs/authentication.md.
defineProblem('jwt-decode-error', 401, 'Het JWT kan niet worden gedecodeerd.');
defineProblem('missing-client-identifier', 401, 'Client identifier is niet aanwezig in het JWT.');
defineProblem('invalid-client-identifier', 401, 'Client identifier bestaat niet.');
defineProblem('invalid-jwt-signature', 401, 'Client credentials zijn niet geldig.');
defineProblem('jwt-missing-iat-claim', 401, "Het JWT mist de claim 'iat'.");
defineProblem('jwt-expired', 401, 'Het JWT is verlopen.');
defineProblem('jwt-not-yet-valid', 401, 'Het JWT is nog niet geldig.');
defineProblem('authorizations-unavailable', 503, 'De autorisaties konden niet worden opgehaald.');

/** The application/problem+json body, in the ZGW shape. */
export interface ProblemBody {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalidParams?: InvalidParam[];
  /** On 5xx: the request id its log lines carry. */
  requestId?: string;
}

/**
 * Where problem `type`s point when no request names the registry's own error catalogue
 * (`<base>/docs/errors`, which the responses of the API use).
 */
export const PUBLISHED_ERROR_CATALOGUE = 'https://github.com/zaakregister/zaakregister/blob/main/docs/errors.md';

/**
 * Throw this from anywhere (a hook, a repository, a catalog client) to end the request with that
 * problem. The plugin host fills in `plugin` and `hook` when it passes through a plugin's hook.
 */
export class ProblemError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly invalidParams?: InvalidParam[];
  readonly headers?: Record<string, string>;
  plugin?: string;
  hook?: string;

  constructor(
    code: string,
    options: { detail?: string; invalidParams?: InvalidParam[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    const definition = catalogue.get(code);
    if (!definition) throw new Error(`unknown problem code "${code}": define it with defineProblem()`);
    super(options.detail ?? definition.title, { cause: options.cause });
    this.name = 'ProblemError';
    this.code = code;
    this.status = definition.status;
    this.title = definition.title;
    this.invalidParams = options.invalidParams;
    this.headers = options.headers;
  }

  /** The body; its `type` is `<errorCatalogue>#<code>`. */
  toBody(errorCatalogue = PUBLISHED_ERROR_CATALOGUE): ProblemBody {
    const body: ProblemBody = {
      type: `${errorCatalogue}#${this.code}`,
      code: this.code,
      title: this.title,
      status: this.status,
      detail: this.message,
      instance: `urn:uuid:${randomUUID()}`,
    };
    if (this.invalidParams) body.invalidParams = this.invalidParams;
    return body;
  }
}

/** A 400 with `invalidParams`: the shape of every validation failure. */
export function validationError(invalidParams: InvalidParam[], detail?: string): ProblemError {
  return new ProblemError('invalid', {
    invalidParams,
    detail: detail ?? invalidParams.map((p) => `${p.name}: ${p.reason}`).join('; '),
  });
}

export function invalidParam(name: string, code: string, reason: string): ProblemError {
  return validationError([{ name, code, reason }]);
}

export function isProblemError(error: unknown): error is ProblemError {
  return error instanceof ProblemError;
}
