import type { AddressInfo } from 'node:net';
import { createRegistry, consoleLogger, staticCatalog, type Registry, type RegistryOptions, type Storage } from '../../src/index.js';
import { TEST_RSIN, TEST_TYPES, testCatalogData } from '../../src/testing/index.js';

export const ZAAKTYPE = TEST_TYPES.zaaktype;
export const ZAAKTYPE_GEHEIM = TEST_TYPES.zaaktypeGeheim;
export const RSIN = TEST_RSIN;
export const RSIN_2 = '002220647';

const CATALOGUS = new URL('..', TEST_TYPES.zaaktype).href.replace(/\/$/, '');
/** Types of ZAAKTYPE in the test catalog, by what tests call them: the toolkit's, and two more. */
export const TYPES = {
  ...TEST_TYPES,
  roltypeCoordinator: `${CATALOGUS}/roltypen/53333333-3333-4333-8333-333333333333`,
  eigenschap: `${CATALOGUS}/eigenschappen/61111111-1111-4111-8111-111111111111`,
};

/** The toolkit's test catalog (`zaakregister/testing`) with a coördinator roltype and an eigenschap. */
export const testCatalog = () => {
  const data = testCatalogData();
  return staticCatalog({
    ...data,
    roltypen: [...(data.roltypen ?? []), { url: TYPES.roltypeCoordinator, zaaktype: ZAAKTYPE, omschrijving: 'Coördinator', omschrijvingGeneriek: 'zaakcoordinator' }],
    eigenschappen: [{ url: TYPES.eigenschap, zaaktype: ZAAKTYPE, naam: 'kenteken' }],
  });
};

export interface TestServer {
  registry: Registry;
  base: string;
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  close(): Promise<void>;
}

/**
 * A registry on a real HTTP server on 127.0.0.1 (random port), in development mode unless told
 * otherwise. The bare core (`preset: 'none'`) unless told otherwise: the core's suites show it serves
 * valid, schema-checked data without the business-rule plugins.
 */
export async function startRegistry(storage: Storage, options: Partial<RegistryOptions> = {}): Promise<TestServer> {
  const registry = await createRegistry({
    storage,
    preset: 'none',
    catalog: testCatalog(),
    authorization: 'development',
    logger: consoleLogger('silent'),
    ...options,
  });
  const server = await registry.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1`;
  return {
    registry,
    base,
    async request(path, init = {}) {
      const { json, ...rest } = init;
      const response = await fetch(path.startsWith('http') ? path : base + path, {
        ...rest,
        headers: { ...(json !== undefined ? { 'content-type': 'application/json' } : {}), ...(rest.headers as Record<string, string>) },
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      return { status: response.status, headers: response.headers, body, text };
    },
    close: () => registry.close(),
  };
}

export function zaakInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    zaaktype: ZAAKTYPE,
    bronorganisatie: RSIN,
    verantwoordelijkeOrganisatie: RSIN,
    startdatum: '2024-03-01',
    ...overrides,
  };
}
