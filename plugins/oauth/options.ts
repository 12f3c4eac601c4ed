import type { JsonWebKey, webcrypto } from 'node:crypto';
import { optionsSchema, type AuthorizationSource } from '../../src/plugin-api.js';

export interface OauthOptions {
  /** The issuers (`iss`) whose access tokens are accepted; each publishes RFC 8414 metadata with its `jwks_uri`. */
  issuers: string[];
  /** This registry's resource indicator (RFC 8707): the `aud` every token must name. */
  audience: string;
  /** Where the application of a token's client comes from (`azp` / `client_id`): zaaktypen and maximum confidentiality. */
  authorizations: AuthorizationSource;
  /** Signature algorithms accepted, default `['PS256']` (NL GOV profile). */
  algorithms?: string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, default 30 seconds. */
  leewaySeconds?: number;
  /** OAuth scope → the registry permissions (ZGW scopes) it grants. Default: every ZGW scope the operations use, under its own name. */
  scopes?: Record<string, string[]>;
  /** Claims recorded in the audit trail as the user: default `sub` and `name`. */
  userClaims?: { id?: string; representation?: string };
  /**
   * Behind a TLS-terminating proxy: the request header carrying the client certificate (URL-encoded
   * PEM). Only set it when the proxy always overwrites that header; off by default.
   */
  trustedCertificateHeader?: string;
  /**
   * The issuers' key sets: refetched after `maxAgeSeconds` (default 600), and for a `kid` they do not
   * hold (the issuer rotated its key) at once, but at most once per `cooldownSeconds` (default 30),
   * so tokens with made-up `kid`s cannot make the registry hammer the issuer.
   */
  jwks?: { maxAgeSeconds?: number; cooldownSeconds?: number };
  /** DPoP proofs (RFC 9449): algorithms (default PS256, ES256) and how long a proof is accepted (default 60 s). */
  dpop?: { algorithms?: string[]; windowSeconds?: number };
  /** Reaching the authorization servers: extra trusted CA (PEM), timeout (default 5000 ms). */
  fetch?: { ca?: string | Buffer; timeoutMs?: number };
  /**
   * RFC 7662: opaque (non-JWT) access tokens are introspected at this issuer's `introspection_endpoint`,
   * the registry authenticating as `clientId` with `private_key_jwt` (`privateKey`, a PS256 JWK or key).
   * Answers are cached until the token's `exp` (a token revoked before then stays accepted until it).
   */
  // Node's key types: jose's are ESM-only, and CommonJS projects read these declarations too.
  introspection?: { issuer: string; clientId: string; privateKey: JsonWebKey | webcrypto.CryptoKey };
  /** The authorization code flow documented in the OpenAPI document; default: from the first issuer's metadata at setup. */
  documentedFlow?: { authorizationUrl: string; tokenUrl: string };
}

const names = { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } };

/**
 * The options' JSON Schema, checked when the plugin is made. The config file's `plugins.oauth` is
 * this schema with files in place of what code passes as values (`fetch.caFile`, `introspection.privateKeyFile`).
 */
export const oauthOptionsSchema = optionsSchema<OauthOptions>({
  issuers: { ...names, description: 'The issuers (iss) whose access tokens are accepted.' },
  audience: { type: 'string', minLength: 1, description: "This registry's resource indicator: the aud every token must name." },
  authorizations: { type: 'object', description: 'Where the application of a client comes from.' },
  algorithms: { ...names, description: 'Signature algorithms accepted (default PS256).' },
  leewaySeconds: { type: 'integer', minimum: 0, maximum: 300, description: 'Clock skew tolerated (default 30).' },
  scopes: {
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string', minLength: 1 } },
    description: 'OAuth scope -> the ZGW scopes it grants (default: the ZGW scope names themselves).',
  },
  userClaims: {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1, description: "The claim with the user's id (default sub)." },
      representation: { type: 'string', minLength: 1, description: "The claim with the user's name (default name)." },
    },
    description: 'Claims recorded as the user in the audit trail (default sub and name).',
  },
  trustedCertificateHeader: {
    type: 'string',
    minLength: 1,
    description: 'Behind a TLS-terminating proxy: the header with the client certificate (URL-encoded PEM). Off by default; only when the proxy always sets it.',
  },
  jwks: {
    type: 'object',
    additionalProperties: false,
    description: "How the issuers' key sets are kept: refetched after maxAgeSeconds (default 600), and for an unknown kid at most once per cooldownSeconds (default 30).",
    properties: {
      maxAgeSeconds: { type: 'integer', minimum: 1, description: 'Refetch a key set after this long (default 600).' },
      cooldownSeconds: { type: 'integer', minimum: 1, description: 'Refetch for an unknown kid at most once per this long (default 30).' },
    },
  },
  dpop: {
    type: 'object',
    additionalProperties: false,
    description: 'DPoP proofs (RFC 9449).',
    properties: {
      algorithms: { ...names, description: 'Proof algorithms accepted (default PS256, ES256).' },
      windowSeconds: { type: 'integer', minimum: 1, maximum: 600, description: 'How long a proof is accepted (default 60).' },
    },
  },
  fetch: {
    type: 'object',
    additionalProperties: false,
    description: 'Reaching the authorization servers.',
    properties: { ca: {}, timeoutMs: { type: 'integer', minimum: 1, description: 'Per request to an authorization server (default 5000).' } },
  },
  introspection: {
    type: 'object',
    additionalProperties: false,
    required: ['issuer', 'clientId', 'privateKey'],
    description: 'Introspect opaque access tokens (RFC 7662) at this issuer, authenticating with private_key_jwt.',
    properties: {
      issuer: { type: 'string', minLength: 1, description: 'One of issuers.' },
      clientId: { type: 'string', minLength: 1, description: "The registry's client id at that issuer." },
      privateKey: { type: 'object' },
    },
  },
  documentedFlow: {
    type: 'object',
    additionalProperties: false,
    required: ['authorizationUrl', 'tokenUrl'],
    properties: {
      authorizationUrl: { type: 'string', format: 'uri', description: 'The authorization endpoint.' },
      tokenUrl: { type: 'string', format: 'uri', description: 'The token endpoint.' },
    },
    description: "The endpoints in the OpenAPI document; default: the first issuer's metadata at start.",
  },
}, { required: ['issuers', 'audience', 'authorizations'] });
