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
/**
 * Applications with many autorisaties, as municipalities configure them: per zaaktype its highest
 * confidentiality. 200: every zaaktype of the data up to intern or beperkt openbaar (about half the
 * zaken), and 100 zaaktypen of another catalogue that no zaak has; 20: a fifth of the zaaktypen up to
 * zaakvertrouwelijk or openbaar.
 */
const OTHER_CATALOGUS = 'http://catalogus.elders/api/v1/zaaktypen';
const lezen = (zaaktype: string, maxVertrouwelijkheidaanduiding: string) => ({ component: 'zrc', zaaktype, scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding });
export const MANY_AUTORISATIES: Record<'bench-200' | 'bench-20', Applicatie['autorisaties']> = {
  'bench-200': [
    ...Array.from({ length: ZAAKTYPEN }, (_, i) => lezen(zaaktypeUrl(i), i % 2 ? 'beperkt_openbaar' : 'intern')),
    ...Array.from({ length: 100 }, (_, i) => lezen(`${OTHER_CATALOGUS}/${id(i)}`, 'geheim')),
  ],
  'bench-20': Array.from({ length: 20 }, (_, k) => lezen(zaaktypeUrl(k * 5 + 1), k % 2 ? 'openbaar' : 'zaakvertrouwelijk')),
};
for (const [clientId, autorisaties] of Object.entries(MANY_AUTORISATIES)) {
  APPLICATIONS.push({ clientIds: [clientId], label: `${autorisaties.length} autorisaties`, heeftAlleAutorisaties: false, autorisaties });
}
export const CLIENTS = { 'bench-alles': SECRET, 'bench-beperkt': SECRET, 'bench-200': SECRET, 'bench-20': SECRET };
