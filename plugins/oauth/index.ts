import { createHash, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, errors, importJWK, jwtVerify, SignJWT, type CryptoKey, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Applicatie, Logger, OpenApiFragment, Operation, Plugin, Principal, RequestContext } from '../../src/plugin-api.js';
import { checkOptions, ProblemError, TtlCache } from '../../src/plugin-api.js';
import { fetchJson, fetchResponse, trustingAgent, type AuthorizationServerFetch } from './fetch.js';
import { oauthOptionsSchema, type OauthOptions } from './options.js';
import { checkCertificateBinding, checkDpopProof, clientCertificate, databaseProofMemory, PROOF_MIGRATION, ProofError, type ProofMemory } from './proof.js';

export { oauthOptionsSchema, type OauthOptions };

/** HS256 tokens are ZGW JWTs: the `zgw-jwt` authenticator's (this plugin accepts no symmetric algorithm at all). */
const ZGW_ALGORITHM = 'HS256';
const SECURITY_SCHEME = 'oauth2';
const RETRY_DISCOVERY_MS = 10_000;
/** Introspection `token_type`s of an access token (RFC 6750 `Bearer`, RFC 9449 `DPoP`, the OAuth token type hint). */
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'dpop', 'access_token']);
const KEYS_UNAVAILABLE = 'De sleutels van de autorisatieserver konden niet worden opgehaald; probeer het later opnieuw.';

interface Issuer {
  jwks: JWTVerifyGetKey;
  metadata: Record<string, unknown>;
}

const invalidToken = (detail: string, description = detail) =>
  new ProblemError('invalid-token', { detail, headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${description.replace(/["\\]/g, '')}"` } });

/** The scheme and token of the Authorization header: `Bearer` or `DPoP` (RFC 9449 §7.1). */
function credentials(header: string | undefined): { scheme: 'bearer' | 'dpop'; token: string } | undefined {
  const match = /^(\S+)\s+(\S+)\s*$/.exec(header ?? '');
  const scheme = match?.[1].toLowerCase();
  return scheme === 'bearer' || scheme === 'dpop' ? { scheme, token: match![2] } : undefined;
}

const stringClaim = (claims: JWTPayload, name: string) => (typeof claims[name] === 'string' && claims[name] ? (claims[name] as string) : undefined);

/** Every ZGW scope an operation needs, under its own name: the default table. */
function identityTable(operations: readonly Operation[]): Record<string, string[]> {
  const scopes = new Set(operations.flatMap((operation) => operation.scopes ?? []));
  return Object.fromEntries([...scopes].sort().map((scope) => [scope, [scope]]));
}

/** The OAuth scopes that grant any of `permissions`. */
const scopesGranting = (table: Record<string, string[]>, permissions: readonly string[]) =>
  Object.keys(table).filter((scope) => table[scope].some((permission) => permissions.includes(permission)));

/**
 * The NL GOV OAuth 2.0 profile on the resource server side: JWT access tokens of allow-listed
 * issuers, verified against their JWKS, for this registry as audience, with scopes mapped to the ZGW
 * permissions and the client to its application; sender-constrained tokens (mTLS, DPoP) only with
 * their proof. ZGW JWTs (HS256) are left to the `zgw-jwt` authenticator, so both can be accepted.
 */
export function oauth(options: OauthOptions): Plugin {
  checkOptions('oauth', oauthOptionsSchema, options);
  const algorithms = options.algorithms ?? ['PS256'];
  if (algorithms.some((alg) => alg === 'none' || alg.startsWith('HS'))) {
    throw new Error('oauth: only asymmetric signature algorithms are accepted');
  }
  const leeway = options.leewaySeconds ?? 30;
  const userClaims = { id: 'sub', representation: 'name', ...options.userClaims };
  const dpop = { algorithms: options.dpop?.algorithms ?? ['PS256', 'ES256'], windowSeconds: options.dpop?.windowSeconds ?? 60, leewaySeconds: leeway };
  const fetchSettings: AuthorizationServerFetch = { agent: options.fetch?.ca ? trustingAgent(options.fetch.ca) : undefined, timeoutMs: options.fetch?.timeoutMs ?? 5000, maxBytes: 1 << 20 };
  /** Issuers whose metadata could not be fetched, with why: reported in `/readyz` until it can. */
  const unreachable = new Map<string, string>();
  let closed = false;
  let rememberProof: ProofMemory;
  const introspected = new TtlCache<JWTPayload>(10_000, 0);
  let assertionKey: Promise<CryptoKey | Uint8Array> | undefined;
  if (options.introspection && !options.issuers.includes(options.introspection.issuer)) throw new Error('oauth: the introspection issuer must be one of issuers');
  const issuers = new Map<string, Promise<Issuer>>();
  let table: Record<string, string[]> = options.scopes ?? {};
  let log: Logger | undefined;

  /** 503: the authorization server cannot be asked; operators see why in the log (clients do not). */
  function unavailable(iss: string, detail: string, error: unknown): ProblemError {
    log?.error('oauth: the authorization server cannot be reached', { issuer: iss, error: (error as Error).message });
    return new ProblemError('authorization-server-unavailable', { detail, cause: error });
  }

  /**
   * RFC 8414 metadata (then OpenID discovery), once per issuer. A failure is remembered for
   * `RETRY_DISCOVERY_MS`: an issuer that is down is not asked again for every request.
   */
  function issuer(iss: string): Promise<Issuer> {
    let loading = issuers.get(iss);
    if (!loading) {
      loading = discover(iss).then((metadata) => ({
        metadata,
        // jose caches the set, refetches it for an unknown `kid`, at most once per cooldown.
        jwks: createRemoteJWKSet(new URL(String(metadata.jwks_uri)), {
          timeoutDuration: fetchSettings.timeoutMs,
          cooldownDuration: (options.jwks?.cooldownSeconds ?? 30) * 1000,
          cacheMaxAge: (options.jwks?.maxAgeSeconds ?? 600) * 1000,
          [customFetch]: (url: string, init: { signal?: AbortSignal }) => fetchResponse(url, fetchSettings, init.signal),
        }),
      }));
      loading.then(
        () => {
          if (unreachable.delete(iss)) log?.info('oauth: the metadata of an issuer that could not be reached is fetched now', { issuer: iss });
        },
        (error: unknown) => {
          unreachable.set(iss, (error as Error).message);
          // Asked again after a while, also without requests, so that readiness tells when it is back.
          setTimeout(() => {
            issuers.delete(iss);
            if (!closed) issuer(iss).catch(() => undefined);
          }, RETRY_DISCOVERY_MS).unref();
        },
      );
      issuers.set(iss, loading);
    }
    return loading;
  }

  async function discover(iss: string): Promise<Record<string, unknown>> {
    const base = iss.replace(/\/+$/, '');
    const origin = new URL(base);
    const suffix = origin.pathname === '/' ? '' : origin.pathname;
    // RFC 8414 §3 inserts the well-known segment before the issuer's path; OpenID appends it.
    const candidates = [`${origin.origin}/.well-known/oauth-authorization-server${suffix}`, `${base}/.well-known/openid-configuration`];
    let lastError: unknown;
    for (const url of candidates) {
      try {
        const metadata = await fetchJson(url, fetchSettings);
        if (metadata.issuer !== iss) throw new Error(`${url} names issuer ${String(metadata.issuer)}, not ${iss}`);
        if (typeof metadata.jwks_uri !== 'string') throw new Error(`${url} has no jwks_uri`);
        return metadata;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  async function verify(token: string): Promise<JWTPayload> {
    let iss: unknown;
    try {
      if (decodeProtectedHeader(token).alg === undefined) throw new Error('no alg');
      iss = decodeJwt(token).iss;
    } catch {
      throw invalidToken('Het access token is geen JWT.');
    }
    if (typeof iss !== 'string' || !options.issuers.includes(iss)) throw invalidToken(`De uitgever (iss) van het token wordt hier niet vertrouwd.`, 'untrusted issuer');
    let known: Issuer;
    try {
      known = await issuer(iss);
    } catch (error) {
      throw unavailable(iss, KEYS_UNAVAILABLE, error);
    }
    try {
      const { payload } = await jwtVerify(token, known.jwks, {
        issuer: iss,
        audience: options.audience,
        algorithms,
        clockTolerance: leeway,
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat'],
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) throw unavailable(iss, KEYS_UNAVAILABLE, error);
      throw invalidToken(tokenProblem(error as errors.JOSEError), (error as Error).message);
    }
  }

  /** The registry's `private_key_jwt` assertion for the introspection endpoint. */
  async function clientAssertion(introspection: NonNullable<OauthOptions['introspection']>): Promise<string> {
    assertionKey ??= 'kty' in introspection.privateKey ? importJWK(introspection.privateKey as JWK, 'PS256') : Promise.resolve(introspection.privateKey as unknown as CryptoKey);
    const key = await assertionKey;
    return new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'PS256' })
      .setIssuer(introspection.clientId)
      .setSubject(introspection.clientId)
      .setAudience(introspection.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key);
  }

  /**
   * RFC 7662: what the issuer says of an opaque token, held to the same rules as a JWT's claims.
   * Accepted answers are kept until the token's `exp`; concurrent requests with one token ask once.
   */
  async function introspect(token: string): Promise<JWTPayload> {
    const introspection = options.introspection;
    if (!introspection) throw invalidToken('Het access token is geen JWT.', 'not a JWT');
    const key = createHash('sha256').update(token).digest('base64url');
    return introspected.get(key, () => askIssuer(token, introspection), (claims) => (claims.exp! + leeway) * 1000 - Date.now());
  }

  async function askIssuer(token: string, introspection: NonNullable<OauthOptions['introspection']>): Promise<JWTPayload> {
    const now = Date.now() / 1000;
    let answer: Record<string, unknown>;
    try {
      const { metadata } = await issuer(introspection.issuer);
      if (typeof metadata.introspection_endpoint !== 'string') throw new Error(`${introspection.issuer} has no introspection_endpoint`);
      const form = {
        token,
        token_type_hint: 'access_token',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await clientAssertion(introspection),
      };
      answer = await fetchJson(metadata.introspection_endpoint, fetchSettings, { form });
    } catch (error) {
      throw unavailable(introspection.issuer, 'De autorisatieserver kon het token niet beoordelen; probeer het later opnieuw.', error);
    }
    const claims = answer as JWTPayload;
    if (answer.active !== true) throw invalidToken('Het access token is niet (meer) geldig.', 'inactive');
    // RFC 7662 makes token_type optional; when given it must name an access token, never a refresh or ID token.
    if (answer.token_type !== undefined && !ACCESS_TOKEN_TYPES.has(String(answer.token_type).toLowerCase())) {
      throw invalidToken('Het token is geen access token.', `token_type ${String(answer.token_type)}`);
    }
    if (claims.iss !== undefined && claims.iss !== introspection.issuer) throw invalidToken(`De uitgever (iss) van het token wordt hier niet vertrouwd.`, 'untrusted issuer');
    const audiences = [claims.aud ?? []].flat();
    if (!audiences.includes(options.audience)) throw invalidToken(`Het access token is niet voor deze registratie (aud moet ${options.audience} bevatten).`, 'audience');
    if (typeof claims.exp !== 'number') throw invalidToken("Het access token heeft geen 'exp'.", 'no exp');
    if (claims.exp + leeway <= now) throw invalidToken('Het access token is verlopen.', 'expired');
    return claims;
  }

  /** A Dutch detail for what jose found wrong. */
  function tokenProblem(error: errors.JOSEError): string {
    if (error instanceof errors.JWTExpired) return 'Het access token is verlopen.';
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'aud') return `Het access token is niet voor deze registratie (aud moet ${options.audience} bevatten).`;
    if (error instanceof errors.JWTClaimValidationFailed) return `De claim '${error.claim}' van het access token is ongeldig.`;
    if (error instanceof errors.JOSEAlgNotAllowed) return `Het algoritme van het access token is niet toegestaan (toegestaan: ${algorithms.join(', ')}).`;
    if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) return 'De handtekening van het access token klopt niet.';
    return 'Het access token is ongeldig.';
  }

  /** RFC 9068: `client_id`; the NL GOV profile adds `azp`, which must then name the same client. */
  function clientOf(claims: JWTPayload): string {
    const clientId = stringClaim(claims, 'client_id');
    const azp = stringClaim(claims, 'azp');
    if (clientId && azp && clientId !== azp) throw invalidToken("De claims 'azp' en 'client_id' van het access token noemen verschillende clients.", 'azp mismatch');
    const client = clientId ?? azp;
    if (!client) throw invalidToken("Het access token noemt geen client ('client_id' of 'azp').", 'no client');
    return client;
  }

  /** The registry permissions of the token's scopes. */
  function permissionsOf(claims: JWTPayload): Set<string> {
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
    return new Set(scopes.flatMap((scope) => (Object.hasOwn(table, scope) ? table[scope] : [])));
  }

  /** RFC 6750 §3.1: the operation needs a scope the token lacks; 403 naming the scopes that would do. */
  function checkOperationScope(operation: Operation, permissions: Set<string>): void {
    const needed = operation.scopes ?? [];
    if (!needed.length || needed.some((permission) => permissions.has(permission))) return;
    const scopes = scopesGranting(table, needed);
    throw new ProblemError('insufficient-scope', {
      detail: `Het access token heeft geen van de scopes die deze actie vraagt: ${scopes.join(', ')}.`,
      headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scopes.join(' ')}"` },
    });
  }

  async function checkProof(ctx: RequestContext, token: string, scheme: 'bearer' | 'dpop', claims: JWTPayload): Promise<void> {
    const cnf = (claims.cnf ?? {}) as Record<string, unknown>;
    const jkt = typeof cnf.jkt === 'string' ? cnf.jkt : undefined;
    const thumbprint = typeof cnf['x5t#S256'] === 'string' ? cnf['x5t#S256'] : undefined;
    try {
      if (thumbprint) checkCertificateBinding(thumbprint, clientCertificate(ctx.req, options.trustedCertificateHeader));
      if (jkt && scheme !== 'dpop') throw new ProofError("Dit token is gebonden aan een DPoP-sleutel; stuur het als 'Authorization: DPoP <token>' met een DPoP proof.");
      if (!jkt && scheme === 'dpop') throw new ProofError('Dit token is niet aan een DPoP-sleutel gebonden; stuur het als Bearer token.');
      if (jkt) {
        const path = ctx.req.originalUrl.split('?')[0];
        await checkDpopProof(ctx.req, new URL(path, new URL(ctx.baseUrl).origin), token, jkt, dpop, rememberProof);
      }
    } catch (error) {
      if (!(error instanceof ProofError)) throw error;
      throw new ProblemError('invalid-token', { detail: error.message, headers: { 'www-authenticate': `${jkt ? 'DPoP' : 'Bearer'} error="invalid_token"` } });
    }
  }

  function principalFor(clientId: string, claims: JWTPayload, permissions: Set<string>, application: Applicatie | undefined): Principal {
    return {
      clientId,
      applicationLabel: application?.label,
      userId: stringClaim(claims, userClaims.id),
      userRepresentation: stringClaim(claims, userClaims.representation),
      allAuthorizations: application?.heeftAlleAutorisaties ?? false,
      // The application's authorizations, narrowed to what the token was granted.
      authorizations: (application?.autorisaties ?? [])
        .filter((autorisatie) => autorisatie.component === 'zrc')
        .map(({ zaaktype, scopes, maxVertrouwelijkheidaanduiding }) => ({ zaaktype, scopes: scopes.filter((scope) => permissions.has(scope)), maxVertrouwelijkheidaanduiding })),
      method: 'oauth',
    };
  }

  async function authenticate(ctx: RequestContext): Promise<Principal | undefined> {
    const given = credentials(ctx.req.headers.authorization);
    if (!given) return undefined;
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(given.token).alg;
    } catch {
      // Not a JOSE object: an opaque token, for introspection.
    }
    if (given.scheme === 'bearer' && alg === ZGW_ALGORITHM) return undefined;
    const claims = alg === undefined ? await introspect(given.token) : await verify(given.token);
    await checkProof(ctx, given.token, given.scheme, claims);
    const clientId = clientOf(claims);
    const permissions = permissionsOf(claims);
    checkOperationScope(ctx.operation, permissions);
    return principalFor(clientId, claims, permissions, await options.authorizations.applicationFor(clientId));
  }

  return {
    name: 'oauth',
    async setup(api) {
      log = api.registry.log;
      rememberProof = databaseProofMemory(api.registry.storage.knex);
      api.addMigrations([PROOF_MIGRATION]);
      api.defineProblem('invalid-token', 401, 'Het access token is ongeldig.');
      api.defineProblem('insufficient-scope', 403, 'Het access token heeft niet de benodigde scope.');
      api.defineProblem('authorization-server-unavailable', 503, 'De autorisatieserver is niet bereikbaar.');
      api.addReadinessDetail(() =>
        unreachable.size
          ? [...unreachable].map(([iss, reason]) => `metadata of issuer ${iss} not fetched (${reason}): its tokens are answered 503 until it is`).join('; ')
          : undefined,
      );
      const operations = api.operations();
      if (!options.scopes) table = identityTable(operations);
      const flow = options.documentedFlow ?? (await documentedFlow(options.issuers[0]));
      api.addOpenApi(securityFragment(table, flow, operations));
      // Every issuer's metadata now, so that one that cannot be reached shows in readiness at once.
      for (const iss of options.issuers.slice(1)) issuer(iss).catch(() => undefined);
    },
    close() {
      closed = true;
    },
    // With introspection, every token that is not a JOSE object is the issuer's to judge: before the
    // ZGW JWT authenticator, which would refuse it as an undecodable JWT (`jwt-decode-error`).
    authenticate: options.introspection ? { order: 'pre', handler: authenticate } : authenticate,
    // The pipeline's own 401 (no credentials) carries no challenge; RFC 6750 §3 wants one.
    onResponse(ctx) {
      if (ctx.response.status !== 401) return;
      if (!Object.keys(ctx.response.headers).some((name) => name.toLowerCase() === 'www-authenticate')) ctx.response.headers['www-authenticate'] = 'Bearer';
    },
  };

  /**
   * The flow the OpenAPI document names, from the first issuer's metadata. An issuer that cannot be
   * reached does not stop the registry from starting: the document then names the issuer itself
   * (`documentedFlow` avoids that), and its tokens are answered 503 until its metadata is fetched.
   */
  async function documentedFlow(iss: string): Promise<{ authorizationUrl: string; tokenUrl: string }> {
    try {
      const { metadata } = await issuer(iss);
      return { authorizationUrl: String(metadata.authorization_endpoint), tokenUrl: String(metadata.token_endpoint) };
    } catch (error) {
      log?.warn(`oauth: the metadata of issuer ${iss} cannot be fetched at start-up (${(error as Error).message}); its tokens are answered 503 until it can, and the OpenAPI document names the issuer as its endpoints (set documentedFlow to name them)`, { issuer: iss });
      return { authorizationUrl: iss, tokenUrl: iss };
    }
  }
}

/**
 * The `oauth2` security scheme with the scopes of `table`, and on every authenticated operation
 * the OAuth scopes that grant what it needs, beside the ZGW JWT requirement. Operations are read when
 * the document is built (`paths` is a getter): those that plugins add after this one count too.
 */
function securityFragment(table: Record<string, string[]>, flow: { authorizationUrl: string; tokenUrl: string }, operations: readonly Operation[]): OpenApiFragment {
  const scopes = Object.fromEntries(Object.entries(table).map(([scope, permissions]) => [scope, `Geeft: ${permissions.join(', ')}.`]));
  return {
    components: { securitySchemes: { [SECURITY_SCHEME]: { type: 'oauth2', flows: { authorizationCode: { ...flow, scopes } } } } },
    get paths() {
      const paths: Record<string, Record<string, unknown>> = {};
      for (const operation of operations) {
        if (operation.authenticated === false || operation.documented === false) continue;
        const requirement = { security: [{ [SECURITY_SCHEME]: scopesGranting(table, operation.scopes ?? []) }] };
        const item = (paths[operation.path] ??= {});
        item[operation.method] = requirement;
        if (operation.method === 'get' && operation.action === 'retrieve' && operation.openapi.head !== false) item.head = requirement;
      }
      return paths;
    },
  } as OpenApiFragment;
}
