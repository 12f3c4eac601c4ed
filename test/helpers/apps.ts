import { signZgwJwt, staticAuthorizations, type Applicatie, type AuthOptions } from '../../src/index.js';
import { ZAAKTYPE } from './registry.js';

/** The secret both applications sign their tokens with: what a stand-in API needs to check them. */
export const APPS_SECRET = 'apps-helper-secret-of-at-least-32-bytes';

/**
 * Two applications with ZGW JWTs: `alles` (heeftAlleAutorisaties) and `beperkt`, which may only read
 * zaken of ZAAKTYPE up to `zaakvertrouwelijk`. `headers(clientId)` authenticates a request as one.
 */
export function testApps(): { authorization: AuthOptions; headers(clientId: 'alles' | 'beperkt'): Promise<Record<string, string>> } {
  const applications: Applicatie[] = [
    { clientIds: ['alles'], label: 'Alles', heeftAlleAutorisaties: true, autorisaties: [] },
    {
      clientIds: ['beperkt'],
      label: 'Beperkt',
      heeftAlleAutorisaties: false,
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'zaakvertrouwelijk' }],
    },
  ];
  const tokens = new Map<string, string>();
  return {
    authorization: { clients: { alles: APPS_SECRET, beperkt: APPS_SECRET }, source: staticAuthorizations(applications) },
    async headers(clientId) {
      if (!tokens.has(clientId)) tokens.set(clientId, await signZgwJwt(clientId, APPS_SECRET));
      return { authorization: `Bearer ${tokens.get(clientId)}` };
    },
  };
}
