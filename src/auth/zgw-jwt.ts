import { compactVerify, decodeJwt, decodeProtectedHeader, errors, type JWTPayload } from 'jose';
import type { Plugin, Principal, RequestContext } from '../plugin.js';
import { ProblemError } from '../problem.js';
import type { Applicatie, AuthorizationSource } from './types.js';

/** The secret of each client id, or a function that looks one up (undefined: unknown client). */
export type ClientSecrets = Record<string, string> | ((clientId: string) => string | undefined | Promise<string | undefined>);

export interface ZgwJwtOptions {
  clients?: ClientSecrets;
  /** Where the application of a client id comes from: `staticAuthorizations` or `autorisatiesApi`. */
  authorizations: AuthorizationSource;
  /** Clock skew tolerated on `iat`, `nbf`, `exp` and the maximum age, default 300 seconds. */
  leewaySeconds?: number;
  /** How long after its `iat` a token is accepted, default 3600 seconds (ZGW clients reuse tokens). */
  maxAgeSeconds?: number;
}

/** The only algorithm of ZGW JWTs; a Bearer token whose header names another one is left to other authenticators. */
const ZGW_ALGORITHM = 'HS256';

/** RFC 6750 §3: a rejected token is `invalid_token`; a request without credentials gets the bare challenge. */
const INVALID_TOKEN = { 'www-authenticate': 'Bearer error="invalid_token"' };
const CHALLENGE = 'Bearer';

function refuse(code: string, detail: string): ProblemError {
  return new ProblemError(code, { detail, headers: INVALID_TOKEN });
}

function bearerToken(header: string): string | undefined {
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim());
  if (!match || match[1].toLowerCase() !== 'bearer') return undefined;
  return match[2]?.trim() ?? '';
}

/** Whether this authenticator owns the token: every Bearer token except a JOSE object with another `alg`. */
function ownsToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).alg === ZGW_ALGORITHM;
  } catch {
    return true;
  }
}

function decodeClaims(token: string): JWTPayload {
  try {
    return decodeJwt(token);
  } catch {
    throw refuse('jwt-decode-error', 'Het JWT kan niet worden gedecodeerd; controleer of het volledig is gekopieerd.');
  }
}

async function secretFor(clients: ClientSecrets | undefined, clientId: string): Promise<string | undefined> {
  if (typeof clients === 'function') return clients(clientId);
  // Own keys only: `constructor` or `__proto__` as client_id must not find anything.
  return clients && Object.hasOwn(clients, clientId) ? clients[clientId] : undefined;
}

async function verifySignature(token: string, secret: string): Promise<void> {
  try {
    await compactVerify(token, new TextEncoder().encode(secret), { algorithms: [ZGW_ALGORITHM] });
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) throw refuse('invalid-jwt-signature', 'De handtekening van het JWT klopt niet.');
    throw refuse('jwt-decode-error', `Het JWT is geen geldige JWS: ${(error as Error).message}`);
  }
}

function numericClaim(claims: JWTPayload, name: 'iat' | 'exp' | 'nbf'): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw refuse(name === 'iat' ? 'jwt-missing-iat-claim' : 'jwt-decode-error', `De claim '${name}' moet een tijdstip in seconden zijn.`);
  }
  return value;
}

/**
 * The time rules: `iat` is required and at most `leeway` in the future; the token is accepted until
 * `maxAge` after `iat` and, when it has `exp`, until then (both plus the leeway); `nbf` is honoured.
 */
function checkTimes(claims: JWTPayload, leeway: number, maxAge: number): void {
  const now = Date.now() / 1000;
  const iat = numericClaim(claims, 'iat');
  const exp = numericClaim(claims, 'exp');
  const nbf = numericClaim(claims, 'nbf');
  if (iat === undefined) throw refuse('jwt-missing-iat-claim', "Het JWT mist de claim 'iat' (issued at).");
  if (iat > now + leeway) {
    throw refuse('jwt-not-yet-valid', `'iat' ligt meer dan ${leeway} seconden in de toekomst; controleer de klok van de client.`);
  }
  if (nbf !== undefined && nbf > now + leeway) throw refuse('jwt-not-yet-valid', "'nbf' ligt in de toekomst.");
  if (now - iat > maxAge + leeway) throw refuse('jwt-expired', `Het JWT is ouder dan ${maxAge} seconden; maak een nieuw JWT.`);
  if (exp !== undefined && now > exp + leeway) throw refuse('jwt-expired', "Het tijdstip in 'exp' is verstreken.");
}

function stringClaim(claims: JWTPayload, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' && value ? value : undefined;
}

function principalFor(clientId: string, claims: JWTPayload, application: Applicatie | undefined): Principal {
  return {
    clientId,
    applicationLabel: application?.label,
    userId: stringClaim(claims, 'user_id'),
    userRepresentation: stringClaim(claims, 'user_representation'),
    allAuthorizations: application?.heeftAlleAutorisaties ?? false,
    authorizations: (application?.autorisaties ?? [])
      .filter((autorisatie) => autorisatie.component === 'zrc')
      .map(({ zaaktype, scopes, maxVertrouwelijkheidaanduiding }) => ({ zaaktype, scopes, maxVertrouwelijkheidaanduiding })),
    method: 'zgw-jwt',
  };
}


/**
 * ZGW JWT authentication: `Authorization: Bearer <jwt>`, HS256, signed with the secret of the
 * token's `client_id`; the principal gets the `zrc` authorizations of that client's application.
 * A request without a Bearer header, or with a token of another algorithm, is left to the next
 * authenticator (none → 401 `not_authenticated`).
 */
export function zgwJwt(options: ZgwJwtOptions): Plugin {
  const leeway = options.leewaySeconds ?? 300;
  const maxAge = options.maxAgeSeconds ?? 3600;
  // Clients send one token for many requests: it is decoded and its signature checked once per
  // secret (the secret of its client may change); its times are checked every time.
  const verified = new Map<string, { secret: string; claims: JWTPayload }>();
  const VERIFIED_MAX = 10_000;

  async function authenticate(ctx: RequestContext): Promise<Principal | undefined> {
    const header = ctx.req.headers.authorization;
    if (header === undefined) return undefined;
    const token = bearerToken(header);
    if (token === undefined) return undefined;
    const known = verified.get(token);
    if (!known && !ownsToken(token)) return undefined;
    const claims = known?.claims ?? decodeClaims(token);
    const clientId = claims.client_id;
    if (typeof clientId !== 'string' || !clientId) throw refuse('missing-client-identifier', "Het JWT heeft geen claim 'client_id'.");
    const secret = await secretFor(options.clients, clientId);
    if (!secret) throw refuse('invalid-client-identifier', `Client identifier '${clientId}' is hier niet bekend.`);
    if (known?.secret !== secret) {
      await verifySignature(token, secret);
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
      verified.set(token, { secret, claims });
    }
    checkTimes(claims, leeway, maxAge);
    return principalFor(clientId, claims, await options.authorizations.applicationFor(clientId));
  }

  return {
    name: 'zgw-jwt',
    authenticate,
    // The pipeline's own 401 (no credentials at all) carries no challenge; RFC 6750 wants one.
    onResponse(ctx) {
      if (ctx.response.status !== 401) return;
      const named = Object.keys(ctx.response.headers).some((name) => name.toLowerCase() === 'www-authenticate');
      if (!named) ctx.response.headers['www-authenticate'] = CHALLENGE;
    },
  };
}
