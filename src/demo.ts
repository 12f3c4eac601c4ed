import demo from '../examples/demo-catalog.json' with { type: 'json' };
import type { Applicatie } from './auth/types.js';
import { staticCatalog, type StaticCatalogData } from './catalog/static-catalog.js';
import type { CatalogClient } from './catalog/types.js';

/** The origin the demo catalog file (`examples/demo-catalog.json`) is written for. */
const FILE_ORIGIN = 'http://localhost:8000';

/** The demo zaaktypen by name: their uuids (URLs: `demoZaaktype(name, origin)`). */
export const DEMO_ZAAKTYPEN = {
  meldingOpenbareRuimte: '0119dd4e-7be9-477e-bccf-75023b1453c1',
  bezwaar: '3e7aa8d5-3a4c-4e3c-9d8b-3f1e2b3c4d5e',
} as const;

/** The demo catalog's types with their URLs on `origin` (`http://localhost:9000`, or a base URL whose origin is taken). */
export function demoCatalogData(origin = FILE_ORIGIN): StaticCatalogData {
  return JSON.parse(JSON.stringify(demo).replaceAll(FILE_ORIGIN, new URL(origin).origin)) as StaticCatalogData;
}

/** The URL of a demo zaaktype on `origin`. */
export function demoZaaktype(name: keyof typeof DEMO_ZAAKTYPEN, origin = FILE_ORIGIN): string {
  return `${new URL(origin).origin}/catalogi/api/v1/zaaktypen/${DEMO_ZAAKTYPEN[name]}`;
}

/**
 * The demo catalog as a static catalog client: two zaaktypen with their statustypen and roltypen,
 * for trying the registry out. `origin` may be a function, read at the first
 * look-up (a server listening on port 0 knows its port only then).
 */
export function demoCatalog(origin: string | (() => string) = FILE_ORIGIN): CatalogClient {
  let catalog: CatalogClient | undefined;
  const current = () => (catalog ??= staticCatalog(demoCatalogData(typeof origin === 'function' ? origin() : origin)));
  return {
    zaaktype: (url) => current().zaaktype(url),
    get: (kind, url) => current().get(kind, url),
    listFor: (kind, zaaktype) => current().listFor(kind, zaaktype),
  };
}

/** One demo application that may do everything, for the client id given (pair it with a secret in `clients`). */
export function demoApplications(clientId = 'demo'): Applicatie[] {
  return [{ clientIds: [clientId], label: 'Demo (alle autorisaties)', heeftAlleAutorisaties: true, autorisaties: [] }];
}
