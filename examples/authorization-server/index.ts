/**
 * A reference NL GOV OAuth 2.0 profile configuration of panva's oidc-provider, for the registry as
 * resource server. Vendors start from it; the registry's tests run it in-process.
 *
 * - the authorization code flow only, PKCE S256 required for every client (oidc-provider knows no `plain`);
 * - confidential clients authenticate with `private_key_jwt` (PS256), public ones with PKCE alone;
 * - redirect URIs match exactly (oidc-provider compares them as registered);
 * - access tokens are JWTs (RFC 9068, PS256) for the registry as resource (RFC 8707), with `azp`;
 * - refresh tokens may ask for fewer scopes, never more (oidc-provider refuses `invalid_scope`);
 * - higher-level scopes go only to the clients permitted them;
 * - certificate-bound (RFC 8705) and DPoP-bound (RFC 9449) access tokens when the client asks;
 * - introspection (RFC 7662) for resource servers registered as clients with `private_key_jwt`.
 *
 * `npm install oidc-provider` (a development dependency of zaakregister) to use it.
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import Provider, { errors, type ClientMetadata, type JWK, type KoaContextWithOIDC } from 'oidc-provider';

export interface AuthorizationServerOptions {
  /** The issuer identifier: the HTTPS URL the server is reached at. */
  issuer: string;
  /** The resource indicators (RFC 8707) tokens may be asked for: the registry's base URL first. */
  resources: string[];
  /** Scopes every client may be granted for those resources (the ZGW scope names). */
  scopes: string[];
  /** Higher-level scopes, each with the client ids permitted to get it. */
  elevatedScopes?: Record<string, string[]>;
  clients: ClientMetadata[];
  /** The private signing key of access tokens (a PS256 JWK with `kid`). */
  signingKey: JWK;
  /** The users, by account id: the display name goes into the access token as `name`. */
  users: Record<string, { name: string }>;
  /**
   * Who the user at the login step is: the deployment's own authentication (DigiD, eHerkenning,
   * a corporate identity provider). Answer an account id, or undefined to refuse.
   */
  login(req: IncomingMessage): Promise<string | undefined>;
  /** Access token lifetime, default 300 seconds. */
  accessTokenSeconds?: number;
  /** `jwt` (default, RFC 9068) or `opaque`: then the resource server introspects them (RFC 7662). */
  accessTokenFormat?: 'jwt' | 'opaque';
}

const PS256 = 'PS256';

/** The oidc-provider, and the request handler that serves it with automated consent after `login`. */
export function createAuthorizationServer(options: AuthorizationServerOptions): {
  provider: Provider;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
} {
  const scopesFor = (clientId: string) => [
    ...options.scopes,
    ...Object.entries(options.elevatedScopes ?? {})
      .filter(([, permitted]) => permitted.includes(clientId))
      .map(([scope]) => scope),
  ];
  const provider = new Provider(options.issuer, {
    clients: options.clients.map((client) => ({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: PS256,
      ...(client.token_endpoint_auth_method === 'none' ? {} : { token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: PS256 }),
      ...client,
    })),
    jwks: { keys: [{ ...options.signingKey, alg: PS256, use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clientAuthMethods: ['private_key_jwt', 'none'],
    enabledJWA: { clientAuthSigningAlgValues: [PS256], idTokenSigningAlgValues: [PS256], dPoPSigningAlgValues: [PS256, 'ES256'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access'],
    findAccount: (_ctx, sub) => (Object.hasOwn(options.users, sub) ? { accountId: sub, claims: () => ({ sub, name: options.users[sub].name }) } : undefined),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== 'AccessToken') return undefined;
      const accountId = (token as { accountId?: string }).accountId;
      return { azp: token.clientId, ...(accountId && Object.hasOwn(options.users, accountId) ? { name: options.users[accountId].name } : {}) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      dPoP: { enabled: true },
      mTLS: {
        enabled: true,
        certificateBoundAccessTokens: true,
        getCertificate(ctx: KoaContextWithOIDC) {
          const peer = (ctx.socket as TLSSocket).getPeerCertificate?.(false);
          return peer?.raw ? new X509Certificate(peer.raw) : undefined;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resources[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => {
          if (!options.resources.includes(resource)) throw new errors.InvalidTarget();
          return {
            scope: scopesFor(client.clientId).join(' '),
            audience: resource,
            accessTokenFormat: options.accessTokenFormat ?? 'jwt',
            accessTokenTTL: options.accessTokenSeconds ?? 300,
            jwt: { sign: { alg: PS256 } },
          };
        },
      },
    },
  });
  provider.proxy = false;

  /** Login by the deployment's `login`, then consent to exactly what was asked (and the resource server allows). */
  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const accountId = await options.login(req);
    if (!accountId) {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'login refused' }, { mergeWithLastSubmission: false });
      return;
    }
    const clientId = String(details.params.client_id);
    const grant = details.grantId ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId })) : new provider.Grant({ accountId, clientId });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  const callback = provider.callback();
  return {
    provider,
    handler(req, res) {
      if (!req.url?.startsWith('/interaction/')) {
        callback(req, res);
        return;
      }
      interaction(req, res).catch((error: unknown) => {
        res.statusCode = 400;
        res.setHeader('content-type', 'text/plain');
        res.end(`interaction failed: ${(error as Error).message}`);
      });
    },
  };
}
