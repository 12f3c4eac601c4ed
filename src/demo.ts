import demo from '../examples/demo-catalog.json' with { type: 'json' };
import type { Applicatie } from './auth/types.js';
import { staticCatalog, type StaticCatalogData } from './catalog/static-catalog.js';
import type { CatalogClient } from './catalog/types.js';
import { catalogRouter } from './catalog/catalog-router.js';

/** The origin the demo catalog file (`examples/demo-catalog.json`) is written for. */
const FILE_ORIGIN = 'http://localhost:8000';

/** The demo zaaktypen by name: their uuids (URLs: `demoZaaktype(name, origin)`). */
export const DEMO_ZAAKTYPEN = {
  meldingOpenbareRuimte: '0119dd4e-7be9-477e-bccf-75023b1453c1',
  bezwaar: '3e7aa8d5-3a4c-4e3c-9d8b-3f1e2b3c4d5e',
} as const;

/** The other demo types by zaaktype and name: their uuids (URLs: `demoType(kind, name, origin)`). */
export const DEMO_TYPES = {
  statustypen: {
    meldingOntvangen: '9b2a7d1e-1111-4a5b-8c9d-000000000001',
    meldingAfgehandeld: '9b2a7d1e-1111-4a5b-8c9d-000000000002',
    bezwaarOntvangen: '9b2a7d1e-2222-4a5b-8c9d-000000000001',
    bezwaarBesloten: '9b2a7d1e-2222-4a5b-8c9d-000000000002',
  },
  resultaattypen: {
    /** Melding: vernietigen one year after the zaak ends (afleidingswijze `afgehandeld`). */
    meldingOpgelost: '6a1b2c3d-4444-4a5b-8c9d-000000000001',
    /** Melding: vernietigen six months after einddatum plus a procestermijn of a year (`termijn`). */
    meldingDoorverwezen: '6a1b2c3d-4444-4a5b-8c9d-000000000002',
    /** Bezwaar: blijvend bewaren (`afgehandeld`). */
    bezwaarGegrond: '6a1b2c3d-4444-4a5b-8c9d-000000000003',
    /** Bezwaar: vernietigen ten years after the zaakeigenschap `uitspraakdatum` (`eigenschap`). */
    bezwaarOngegrond: '6a1b2c3d-4444-4a5b-8c9d-000000000004',
  },
  roltypen: {
    meldingMelder: '5c1d2e3f-3333-4a5b-8c9d-000000000001',
    meldingBehandelaar: '5c1d2e3f-3333-4a5b-8c9d-000000000002',
    bezwaarBezwaarmaker: '5c1d2e3f-3333-4a5b-8c9d-000000000003',
    bezwaarBehandelaar: '5c1d2e3f-3333-4a5b-8c9d-000000000004',
  },
  eigenschappen: {
    /** Melding: one of afval, verlichting, groen, overig. */
    meldingCategorie: '8e4f5a6b-6666-4a5b-8c9d-000000000001',
    meldingLocatieOmschrijving: '8e4f5a6b-6666-4a5b-8c9d-000000000002',
    /** Bezwaar: a date (`formaat` datum, YYYYMMDD). */
    bezwaarUitspraakdatum: '8e4f5a6b-6666-4a5b-8c9d-000000000003',
  },
  informatieobjecttypen: {
    melding: '7d3e4f5a-5555-4a5b-8c9d-000000000001',
    bezwaarschrift: '7d3e4f5a-5555-4a5b-8c9d-000000000002',
  },
} as const;

/** The URL of a demo type on `origin`: `demoType('resultaattypen', 'meldingOpgelost', base)`. */
export function demoType<K extends keyof typeof DEMO_TYPES>(kind: K, name: keyof (typeof DEMO_TYPES)[K], origin = FILE_ORIGIN): string {
  return `${new URL(origin).origin}/catalogi/api/v1/${kind}/${DEMO_TYPES[kind][name] as string}`;
}

/** The demo catalog's types with their URLs on `origin` (`http://localhost:9000`, or a base URL whose origin is taken). */
export function demoCatalogData(origin = FILE_ORIGIN): StaticCatalogData {
  return JSON.parse(JSON.stringify(demo).replaceAll(FILE_ORIGIN, new URL(origin).origin)) as StaticCatalogData;
}

/** The URL of a demo zaaktype on `origin`. */
export function demoZaaktype(name: keyof typeof DEMO_ZAAKTYPEN, origin = FILE_ORIGIN): string {
  return `${new URL(origin).origin}/catalogi/api/v1/zaaktypen/${DEMO_ZAAKTYPEN[name]}`;
}

/**
 * The demo catalog as a static catalog client: two zaaktypen with their statustypen, resultaattypen
 * (with archive parameters), roltypen, eigenschappen and informatieobjecttypen, for trying the registry out. `origin` may be a function, read at the first
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

/**
 * The demo catalog as a read-only Catalogi API (an Express router, mounted at the origin's root):
 * every type at its URL on `origin`, and the lists `/catalogi/api/v1/<kind>?zaaktype=…`. Development
 * mode serves it beside the registry; `origin` may be a function, as for `demoCatalog`.
 */
export function demoCatalogRouter(origin: string | (() => string) = FILE_ORIGIN) {
  return catalogRouter(() => demoCatalogData(typeof origin === 'function' ? origin() : origin));
}

/** One demo application that may do everything, for the client id given (pair it with a secret in `clients`). */
export function demoApplications(clientId = 'demo'): Applicatie[] {
  return [{ clientIds: [clientId], label: 'Demo (alle autorisaties)', heeftAlleAutorisaties: true, autorisaties: [] }];
}
