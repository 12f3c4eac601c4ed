import type { AddressInfo } from 'node:net';
import { createRegistry, consoleLogger, staticCatalog, type Registry, type RegistryOptions, type Storage } from '../../src/index.js';

export const ZAAKTYPE = 'http://catalogus.test/api/v1/zaaktypen/11111111-1111-4111-8111-111111111111';
export const ZAAKTYPE_GEHEIM = 'http://catalogus.test/api/v1/zaaktypen/22222222-2222-4222-8222-222222222222';
export const RSIN = '517439943';
export const RSIN_2 = '002220647';

const CATALOGUS = 'http://catalogus.test/api/v1';
/** Types of ZAAKTYPE in the test catalog, by what tests call them. */
export const TYPES = {
  statustypeStart: `${CATALOGUS}/statustypen/31111111-1111-4111-8111-111111111111`,
  statustypeEind: `${CATALOGUS}/statustypen/32222222-2222-4222-8222-222222222222`,
  resultaattype: `${CATALOGUS}/resultaattypen/41111111-1111-4111-8111-111111111111`,
  roltypeInitiator: `${CATALOGUS}/roltypen/51111111-1111-4111-8111-111111111111`,
  roltypeBehandelaar: `${CATALOGUS}/roltypen/52222222-2222-4222-8222-222222222222`,
  roltypeCoordinator: `${CATALOGUS}/roltypen/53333333-3333-4333-8333-333333333333`,
  eigenschap: `${CATALOGUS}/eigenschappen/61111111-1111-4111-8111-111111111111`,
};

export const testCatalog = () =>
  staticCatalog({
    zaaktypen: [
      { url: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar', informatieobjecttypen: [] },
      { url: ZAAKTYPE_GEHEIM, vertrouwelijkheidaanduiding: 'geheim', statustypen: [], informatieobjecttypen: [] },
    ],
    statustypen: [
      { url: TYPES.statustypeStart, zaaktype: ZAAKTYPE, volgnummer: 1, omschrijving: 'Ontvangen' },
      { url: TYPES.statustypeEind, zaaktype: ZAAKTYPE, volgnummer: 2, omschrijving: 'Afgehandeld' },
    ],
    resultaattypen: [{ url: TYPES.resultaattype, zaaktype: ZAAKTYPE, omschrijving: 'Toegekend' }],
    roltypen: [
      { url: TYPES.roltypeInitiator, zaaktype: ZAAKTYPE, omschrijving: 'Aanvrager', omschrijvingGeneriek: 'initiator' },
      { url: TYPES.roltypeBehandelaar, zaaktype: ZAAKTYPE, omschrijving: 'Behandelaar', omschrijvingGeneriek: 'behandelaar' },
      { url: TYPES.roltypeCoordinator, zaaktype: ZAAKTYPE, omschrijving: 'Coördinator', omschrijvingGeneriek: 'zaakcoordinator' },
    ],
    eigenschappen: [{ url: TYPES.eigenschap, zaaktype: ZAAKTYPE, naam: 'kenteken' }],
  });

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
