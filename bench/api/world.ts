import type { Applicatie, StaticCatalogData } from '../../src/index.js';

/** The benchmark's catalog, applications and data shape, shared by the seeder, the servers and the driver. */

export const ZAAKTYPEN = 100;
export const RSIN = '517439943';
export const SECRET = 'bench-secret-of-at-least-thirty-two-bytes';
const CATALOGUS = 'http://catalogus.bench/api/v1';
const id = (n: number) => String(n).padStart(12, '0');

/** The i-th zaaktype (0–99), and its types: what the seeder stores and the static catalog serves. */
export const zaaktypeUrl = (i: number) => `${CATALOGUS}/zaaktypen/00000000-0000-4000-8000-${id(i)}`;
export const statustypeUrl = (i: number, volgnummer: 1 | 2) => `${CATALOGUS}/statustypen/0000000${volgnummer}-0000-4000-8000-${id(i)}`;
export const roltypeUrl = (i: number, generiek: 'initiator' | 'behandelaar') => `${CATALOGUS}/roltypen/0000000${generiek === 'initiator' ? 1 : 2}-0000-4000-9000-${id(i)}`;
export const eigenschapUrl = (i: number) => `${CATALOGUS}/eigenschappen/00000001-0000-4000-a000-${id(i)}`;
export const resultaattypeUrl = (i: number) => `${CATALOGUS}/resultaattypen/00000001-0000-4000-b000-${id(i)}`;

export function benchCatalog(): StaticCatalogData {
  const all = Array.from({ length: ZAAKTYPEN }, (_, i) => i);
  return {
    zaaktypen: all.map((i) => ({ url: zaaktypeUrl(i), identificatie: `BENCH-${i}`, omschrijving: `Zaaktype ${i}`, vertrouwelijkheidaanduiding: 'openbaar', concept: false, informatieobjecttypen: [] })),
    statustypen: all.flatMap((i) => [1, 2].map((v) => ({ url: statustypeUrl(i, v as 1 | 2), zaaktype: zaaktypeUrl(i), volgnummer: v, omschrijving: v === 1 ? 'Ontvangen' : 'Afgehandeld' }))),
    roltypen: all.flatMap((i) =>
      (['initiator', 'behandelaar'] as const).map((g) => ({ url: roltypeUrl(i, g), zaaktype: zaaktypeUrl(i), omschrijving: g, omschrijvingGeneriek: g })),
    ),
    eigenschappen: all.map((i) => ({ url: eigenschapUrl(i), zaaktype: zaaktypeUrl(i), naam: 'kenmerk' })),
    resultaattypen: all.map((i) => ({ url: resultaattypeUrl(i), zaaktype: zaaktypeUrl(i), omschrijving: 'Afgehandeld' })),
  };
}

/** The zaaktypen the limited application may read (10 of 100), up to `vertrouwelijk`. */
export const LIMITED_ZAAKTYPEN = Array.from({ length: 10 }, (_, k) => zaaktypeUrl(k * 10 + 3));

export const APPLICATIONS: Applicatie[] = [
  { clientIds: ['bench-alles'], label: 'Alles', heeftAlleAutorisaties: true, autorisaties: [] },
  {
    clientIds: ['bench-beperkt'],
    label: 'Tien zaaktypen',
    heeftAlleAutorisaties: false,
    autorisaties: LIMITED_ZAAKTYPEN.map((zaaktype) => ({
      component: 'zrc',
      zaaktype,
      scopes: ['zaken.lezen', 'zaken.aanmaken', 'zaken.bijwerken', 'zaken.statussen.toevoegen'],
      maxVertrouwelijkheidaanduiding: 'vertrouwelijk',
    })),
  },
];
export const CLIENTS = { 'bench-alles': SECRET, 'bench-beperkt': SECRET };
