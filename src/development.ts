import type { Plugin, Principal } from './plugin.js';

const DEVELOPER: Principal = {
  clientId: 'development',
  userId: 'development',
  userRepresentation: 'Development mode (no authentication)',
  allAuthorizations: true,
  authorizations: [],
  method: 'development',
};

/**
 * Development mode: every request is authenticated as an application with all authorizations.
 * Only for a developer's machine; the registry logs a loud warning when it is on.
 */
export function developmentMode(): Plugin {
  return {
    name: 'development-mode',
    authenticate: { order: 'post', handler: () => DEVELOPER },
  };
}

export const DEVELOPMENT_WARNING = [
  '',
  '  ************************************************************************',
  '  *  DEVELOPMENT MODE: authentication and authorizations are OFF.        *',
  '  *  Every request is treated as an application with all authorizations. *',
  '  *  Never run this way with real data or on a reachable network.        *',
  '  ************************************************************************',
  '',
].join('\n');
