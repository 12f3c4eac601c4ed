import { signZgwJwt } from '../../src/index.js';
import type { Scenario } from './measure.js';
import { handelingenScenarios } from './handelingen.js';
import { duration, warmup } from './options.js';
import { LIMITED_ZAAKTYPEN, MANY_AUTORISATIES, RSIN, SECRET, ZAAKTYPEN, statustypeUrl, zaaktypeUrl } from './world.js';

/** The ceiling's two ways of sending a page of stored JSON (see `ceiling-server.ts`). */
const CEILINGS = ['ceiling: page 1-10, pre-rendered JSON (string_agg)', 'ceiling: page 1-10, pre-rendered JSON (rows joined in Node)'];

/** Zaken registered ahead per second of a cell, for the zaak_afsluiten cells. */
const HANDELINGEN_PREFILL_PER_SECOND = 200;

/** Four levels deep on the benchmark's data: statussen, rollen, zaakobjecten, zaakeigenschappen and catalog types. */
export const EXPAND_DEPTH_FOUR = 'status.statustype.zaaktype.statustypen,rollen.zaak.eigenschappen.eigenschap,zaakobjecten.zaak.status.statustype';

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

export async function scenarios(sample: { uuid: string; zaaktype: string }[], registryBase: string): Promise<Scenario[]> {
  const alles = { authorization: `Bearer ${await signZgwJwt('bench-alles', SECRET)}` };
  const beperkt = { authorization: `Bearer ${await signZgwJwt('bench-beperkt', SECRET)}` };
  const many = { 'bench-200': { authorization: `Bearer ${await signZgwJwt('bench-200', SECRET)}` }, 'bench-20': { authorization: `Bearer ${await signZgwJwt('bench-20', SECRET)}` } };
  const api = `${registryBase}/zaken/api/v1`;
  const get = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(api + path, { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return { body: (await response.json()) as any, etag: response.headers.get('etag') };
  };

  const etags = await Promise.all(sample.slice(0, 200).map(async (z) => ({ uuid: z.uuid, etag: (await get(`/zaken/${z.uuid}`, alles)).etag! })));
  const pages = async (headers: Record<string, string>) => {
    const count = (await get('/zaken', headers)).body.count as number;
    return { count, last: Math.ceil(count / 100) };
  };
  const all = await pages(alles);
  const limited = await pages(beperkt);
  const firstPages = (last: number) => Array.from({ length: Math.min(10, last) }, (_, i) => ({ method: 'GET' as const, path: `/zaken/api/v1/zaken?page=${i + 1}` }));
  const deep = Math.ceil(all.last / 2);
  const typeNumber = (url: string) => Number(url.slice(-12));
  const zaakBody = (i: number) => ({ zaaktype: zaaktypeUrl(i % ZAAKTYPEN), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' });
  const handelingen = handelingenScenarios(alles);
  // Open zaken for the closing cells beyond those the registration cells make (see handelingen.ts).
  await handelingen.prefill(registryBase, HANDELINGEN_PREFILL_PER_SECOND * (warmup + duration));
  return [
    { name: 'baseline: select one by uuid', target: 'baseline', requests: sample.map((z) => ({ method: 'GET', path: `/zaken/${z.uuid}` })) },
    { name: 'baseline: page 1-10 + count(*)', target: 'baseline', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1', '') })) },
    { name: 'baseline: deep page, late row lookup', target: 'baseline', requests: [{ method: 'GET', path: `/zaken-late?page=${deep}` }] },
    { name: CEILINGS[0], target: 'ceiling', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1', '') })) },
    { name: CEILINGS[1], target: 'ceiling', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1/zaken', '/rows') })) },

    // Lists are compared with the faster ceiling: the naive baseline (page + count(*)) is long beaten.
    { name: 'GET /zaken pages 1-10 (all zaaktypen)', target: 'registry', baseline: CEILINGS, requests: firstPages(all.last), headers: alles },
    { name: 'GET /zaken pages 1-10 (10 zaaktypen)', target: 'registry', baseline: CEILINGS, requests: firstPages(limited.last), headers: beperkt },
    // Many autorisaties, against the same pages of an application with all of them.
    ...(['bench-200', 'bench-20'] as const).map((clientId) => ({
      name: `GET /zaken pages 1-10 (${MANY_AUTORISATIES[clientId].length} autorisaties)`,
      target: 'registry' as const,
      baseline: 'GET /zaken pages 1-10 (all zaaktypen)',
      requests: firstPages(10),
      headers: many[clientId],
    })),
    // A sub-resource list, filtered through its zaak's autorisatie.
    ...([['all zaaktypen', alles], ['200 autorisaties', many['bench-200']]] as const).map(([who, headers]) => ({
      name: `GET /statussen pages 1-3 (${who})`,
      target: 'registry' as const,
      baseline: who === 'all zaaktypen' ? undefined : 'GET /statussen pages 1-3 (all zaaktypen)',
      requests: [1, 2, 3].map((page) => ({ method: 'GET' as const, path: `/zaken/api/v1/statussen?page=${page}` })),
      headers,
    })),
    {
      name: 'POST /zaken/_zoek (200 autorisaties)',
      target: 'registry',
      baseline: 'POST /zaken/_zoek zaaktype__in (10)',
      requests: [{ method: 'POST', path: '/zaken/api/v1/zaken/_zoek', ...json({ zaaktype__in: LIMITED_ZAAKTYPEN }) }],
      headers: many['bench-200'],
    },
    {
      // Four levels from every zaak of a page, through its records, back to its zaak and into the
      // catalog (100 zaaktypen a page): compared with the same pages without expand.
      name: 'GET /zaken pages 1-10, expand 4 levels deep',
      target: 'registry',
      baseline: 'GET /zaken pages 1-10 (all zaaktypen)',
      requests: firstPages(all.last).map((r) => ({ ...r, path: `${r.path}&expand=${EXPAND_DEPTH_FOUR}` })),
      headers: alles,
    },
    {
      name: `GET /zaken?page=${deep} (offset ${((deep - 1) * 100).toLocaleString('en')})`,
      target: 'registry',
      baseline: 'baseline: deep page, late row lookup',
      requests: [{ method: 'GET', path: `/zaken/api/v1/zaken?page=${deep}` }],
      headers: alles,
    },
    {
      name: 'GET /zaken?zaaktype&archiefstatus (two filters)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: Array.from({ length: 10 }, (_, k) => ({ method: 'GET', path: `/zaken/api/v1/zaken?zaaktype=${encodeURIComponent(zaaktypeUrl(k * 7))}&archiefstatus=gearchiveerd` })),
      headers: alles,
    },
    {
      name: 'POST /zaken/_zoek zaaktype__in (10)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: [{ method: 'POST', path: '/zaken/api/v1/zaken/_zoek', ...json({ zaaktype__in: LIMITED_ZAAKTYPEN }) }],
      headers: alles,
    },
    {
      // The same page trimmed to four attributes (zrc-029): it should cost no more than the whole zaken.
      name: 'POST /zaken/_zoek zaaktype__in (10), fields (4 attributes)',
      target: 'registry',
      baseline: 'POST /zaken/_zoek zaaktype__in (10)',
      requests: [{ method: 'POST', path: '/zaken/api/v1/zaken/_zoek', ...json({ zaaktype__in: LIMITED_ZAAKTYPEN, fields: ['url', 'identificatie', 'zaaktype', 'startdatum'] }) }],
      headers: alles,
    },
    {
      // A town-sized box (10 km by 10 km around Amersfoort) in RD over geometries stored in CRS84.
      name: 'GET /zaken?bbox (10 km box in RD)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: [{ method: 'GET', path: `/zaken/api/v1/zaken?bbox=150000,460000,160000,470000&bbox-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/9.9.1/28992')}` }],
      headers: alles,
    },
    { name: 'GET /zaken/{uuid}', target: 'registry', baseline: 'baseline: select one by uuid', requests: sample.map((z) => ({ method: 'GET', path: `/zaken/api/v1/zaken/${z.uuid}` })), headers: alles },
    {
      name: 'GET /zaken/{uuid} If-None-Match (304)',
      target: 'registry',
      baseline: 'baseline: select one by uuid',
      requests: etags.map((z) => ({ method: 'GET', path: `/zaken/api/v1/zaken/${z.uuid}`, headers: { ...alles, 'if-none-match': z.etag } })),
      headers: alles,
      expect: '3xx',
    },
    // Writes last, the baseline's too: every read runs on the table as `reset` left it (vacuumed,
    // its visibility map set), whichever server it measures.
    { name: 'baseline: insert one', target: 'baseline', requests: [{ method: 'POST', path: '/zaken', ...json(zaakBody(0)) }] },
    {
      name: 'POST /zaken',
      target: 'registry',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
    {
      name: 'POST /statussen',
      target: 'registry',
      baseline: 'baseline: insert one',
      requests: sample.slice(0, 100).map((z, i) => ({
        method: 'POST',
        path: '/zaken/api/v1/statussen',
        ...json({ zaak: `${api}/zaken/${z.uuid}`, statustype: statustypeUrl(typeNumber(z.zaaktype), 1), datumStatusGezet: `2026-01-01T10:00:${String(i % 60).padStart(2, '0')}Z` }),
        headers: { ...alles, 'content-type': 'application/json' },
      })),
      headers: alles,
    },
    ...handelingen.scenarios,
    {
      // An API instance beside `zaakregister deliver` workers ("dispatch": false): each write stores
      // its outbox row and the instance delivers nothing. What it left is delivered after each cell
      // by a dispatcher alone (see `drain`), and reported with it.
      name: 'POST /zaken, enqueuing (outbox row, delivered by a worker)',
      target: 'enqueuing',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
    {
      // What a registry that publishes notifications does: an outbox row in each write's transaction,
      // delivered after commit to a Notificaties API (bench/api/notificaties-server.ts, on the same cores).
      // Last: the deliveries it leaves pending go on after its cells, until the next round's reset.
      name: 'POST /zaken, notifying (outbox row, delivered)',
      target: 'notifying',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
  ];
}
