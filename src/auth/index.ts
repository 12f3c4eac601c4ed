import type { Plugin } from '../plugin.js';
import type { AuthorizationSource } from './types.js';
import { zgwJwt, type ClientSecrets } from './zgw-jwt.js';

export interface AuthOptions {
  /** The secret of each client id (`{ clientId: secret }`), or a function that looks one up. */
  clients?: ClientSecrets;
  /** Clock skew tolerated on the token's times, default 300 seconds. */
  leewaySeconds?: number;
  /** How long after `iat` a token is accepted, default 3600 seconds. */
  maxAgeSeconds?: number;
  /** Where applications come from: `staticAuthorizations(...)` or `autorisatiesApi(...)`. */
  source: AuthorizationSource;
  /** Accept secrets shorter than 32 bytes (test environments; a warning at start). Default false: refused. */
  allowWeakSecrets?: boolean;
}

/** The plugins of ZGW authentication: the JWT authenticator, then what the source needs (its webhook). */
export function authenticationPlugins(options: AuthOptions): Plugin[] {
  const { source, allowWeakSecrets: _allowed, ...jwt } = options;
  return [zgwJwt({ ...jwt, authorizations: source }), ...(source.plugins?.() ?? [])];
}

export { zgwJwt, type ClientSecrets, type ZgwJwtOptions } from './zgw-jwt.js';
export { signZgwJwt, type ZgwClaims } from './sign.js';
export { staticAuthorizations, checkApplications, applicationProblems } from './static-source.js';
export { autorisatiesApi, AUTORISATIES_WEBHOOK_PATH, type AutorisatiesApiOptions, type AutorisatiesNotifications } from './autorisaties-api.js';
export type { Applicatie, Autorisatie, AuthorizationSource } from './types.js';
