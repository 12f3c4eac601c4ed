import assert from 'node:assert/strict';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { SUPPORTED_CRS, parseCrsUri, transform, transformBbox, transformGeometry, type Geometry } from './transform/index.js';
import { innerBox, type Box } from './bbox.js';
import { configuredPlugins } from '../../src/presets.js';
import { geoCrs } from './index.js';

const OGC = 'http://www.opengis.net/def/crs/';
const CRS84 = `${OGC}OGC/1.3/CRS84`;
const CRS84H = `${OGC}OGC/0/CRS84h`;
const RD = `${OGC}EPSG/9.9.1/28992`;
/** RDNAPTRANS2018 self-validation point 30010061 (Z001): ETRS89 and its RD coordinates. */
const CONTROL = { lat: 52.290257108, lon: 5.021235164, x: 130031.2115, y: 478092.6998 };

const point = (coordinates: number[]) => ({ type: 'Point', coordinates });
const square = (x: number, y: number, size: number) => ({
  type: 'Polygon',
  coordinates: [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]],
});

describe('geo-crs configuration', () => {
  it('is in the standard preset, configurable from the config file, and refuses an unsupported storageCrs in English', () => {
    assert.ok(configuredPlugins(undefined).some((p) => p.name === 'geo-crs'));
    assert.ok(!configuredPlugins({ 'geo-crs': false }).some((p) => p.name === 'geo-crs'));
    assert.ok(configuredPlugins({ 'geo-crs': { storageCrs: 'EPSG:28992', maxBboxCandidates: 500 } }).some((p) => p.name === 'geo-crs'));
    assert.throws(() => geoCrs({ storageCrs: 'EPSG:4326' }), /storageCrs "EPSG:4326" is not a supported CRS/);
  });
});

describe('geo-crs inner box', () => {
  it('lies inside an RD box in CRS84 (checked along its edges back in RD) and covers nearly all of it, for a town and for the country', () => {
    const rd = parseCrsUri(RD);
    const crs84 = parseCrsUri(CRS84);
    const boxes: Box[] = [[150000, 460000, 160000, 470000], [10000, 300000, 280000, 620000]];
    for (const box of boxes) {
      const inner = innerBox(box, rd, crs84)!;
      const outer = transformBbox(box, rd, crs84);
      assert.ok(inner[0] > outer[0] && inner[1] > outer[1] && inner[2] < outer[2] && inner[3] < outer[3]);
      for (let k = 0; k <= 1000; k++) {
        const t = k / 1000;
        const along = [
          [inner[0] + (inner[2] - inner[0]) * t, inner[1]],
          [inner[0] + (inner[2] - inner[0]) * t, inner[3]],
          [inner[0], inner[1] + (inner[3] - inner[1]) * t],
          [inner[2], inner[1] + (inner[3] - inner[1]) * t],
        ];
        for (const position of along) {
          const [x, y] = transform(position, crs84, rd);
          assert.ok(x > box[0] && x < box[2] && y > box[1] && y < box[3], `${position} lies in the RD box ${box}`);
        }
      }
      const area = (b: number[]) => (b[2] - b[0]) * (b[3] - b[1]);
      assert.ok(area(inner) / area(outer) > 0.9, `inner ${area(inner) / area(outer)} of the outer box`);
    }
    assert.deepEqual(innerBox(boxes[0], rd, rd), boxes[0], 'in its own CRS a box is its own inner box');
  });
});

for (const backend of BACKENDS) {
  describe(`geo-crs plugin on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const call = async (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string>; app?: 'alles' | 'beperkt' } = {}) =>
      api.request(path, { method: init.method ?? 'GET', json: init.json, headers: { ...(await apps.headers(init.app ?? 'alles')), ...init.headers } });
    const create = async (geometry: unknown, headers: Record<string, string> = {}, overrides: Record<string, unknown> = {}) => {
      const response = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: geometry, ...overrides }), headers });
      assert.equal(response.status, 201, response.text);
      return response;
    };
    const listIn = async (query: string, app: 'alles' | 'beperkt' = 'alles') => {
      const response = await call(`/zaken?${query}`, { app });
      assert.equal(response.status, 200, response.text);
      return response;
    };
    const urls = (body: { results: { url: string }[] }) => body.results.map((zaak) => zaak.url).sort();

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [geoCrs()], authorization: apps.authorization });
    });
    after(async () => api?.close());

    it('GET /crss lists every supported CRS, CRS84 first, the ETRF2000 member beside the ETRS89 ensemble, and the storage CRS among them', async () => {
      const response = await api.request('/crss');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const { crs, storageCrs } = response.body as { crs: string[]; storageCrs: string };
      assert.equal(crs[0], CRS84);
      assert.deepEqual([...crs].sort(), SUPPORTED_CRS.map((c) => c.uri).sort());
      assert.equal(crs.indexOf(`${OGC}EPSG/9.9.1/9067`), crs.indexOf(`${OGC}EPSG/9.9.1/4258`) + 2);
      assert.ok(crs.includes(storageCrs), 'storageCrs is one of the listed CRSs');
    });

    it('answers in every listed CRS with Content-Crs naming it; the /EPSG/0/ form is the same CRS', async () => {
      const zaak = (await create(point([CONTROL.lon, CONTROL.lat]))).body as { url: string };
      const { crs } = (await api.request('/crss')).body as { crs: string[] };
      for (const uri of crs) {
        const response = await call(`${zaak.url}?crs=${encodeURIComponent(uri)}`);
        assert.equal(response.status, 200, `${uri}: ${response.text}`);
        assert.equal(response.headers.get('content-crs'), uri);
        assert.equal(response.body.zaakgeometrie.type, 'Point');
      }
      const unversioned = await call(`${zaak.url}?crs=${encodeURIComponent(`${OGC}EPSG/0/28992`)}`);
      assert.equal(unversioned.status, 200);
      assert.equal(unversioned.headers.get('content-crs'), RD, 'one form is advertised');
    });

    it('transforms to and from RD within 1 mm of the RDNAPTRANS2018 control point', async () => {
      const fromRd = await create(point([CONTROL.x, CONTROL.y]), { 'content-crs': RD });
      assert.equal(fromRd.headers.get('content-crs'), CRS84);
      const [lon, lat] = fromRd.body.zaakgeometrie.coordinates;
      assert.ok(Math.abs(lon - CONTROL.lon) < 1e-8 && Math.abs(lat - CONTROL.lat) < 1e-8, `${lon}, ${lat}`);
      const fromCrs84 = (await create(point([CONTROL.lon, CONTROL.lat]))).body as { url: string };
      const inRd = await call(`${fromCrs84.url}?crs=${encodeURIComponent(RD)}`);
      const [x, y] = inRd.body.zaakgeometrie.coordinates;
      assert.ok(Math.abs(x - CONTROL.x) < 0.001 && Math.abs(y - CONTROL.y) < 0.001, `${x}, ${y}`);
    });

    it('puts Content-Crs on list, search, create and update responses; CRS84h for 3D', async () => {
      const flat = await create(point([5, 52]));
      assert.equal(flat.headers.get('content-crs'), CRS84);
      const list = await listIn('pageSize=1');
      assert.equal(list.headers.get('content-crs'), CRS84);
      const search = await call('/zaken/_zoek', { method: 'POST', json: { uuid__in: [flat.body.uuid] } });
      assert.equal(search.status, 200);
      assert.equal(search.headers.get('content-crs'), CRS84);
      const patched = await call(flat.body.url, { method: 'PATCH', json: { zaakgeometrie: point([5, 52, 43.5]) } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.headers.get('content-crs'), CRS84H);
      assert.deepEqual(patched.body.zaakgeometrie.coordinates, [5, 52, 43.5]);
    });

    it('bbox in RD finds geometries stored in CRS84 by exact intersection, and none in a box beside them', async () => {
      const marker = `bbox-rd-${backend.name}`;
      const inside = (await create(point([CONTROL.lon, CONTROL.lat]), {}, { omschrijving: marker })).body.url;
      // An L whose bounding box covers the search box's centre but whose shape passes beside it.
      const around = (await create(
        { type: 'Polygon', coordinates: [[[5.0, 52.28], [5.04, 52.28], [5.04, 52.282], [5.002, 52.282], [5.002, 52.30], [5.0, 52.30], [5.0, 52.28]]] },
        {},
        { omschrijving: marker },
      )).body.url;
      const box = [CONTROL.x - 50, CONTROL.y - 50, CONTROL.x + 50, CONTROL.y + 50].join(',');
      const found = await listIn(`bbox=${box}&bbox-crs=${encodeURIComponent(RD)}&crs=${encodeURIComponent(RD)}`);
      assert.ok(found.body.results.some((zaak: { url: string }) => zaak.url === inside));
      assert.ok(!found.body.results.some((zaak: { url: string }) => zaak.url === around), 'the exact test drops a mere bounding-box overlap');
      assert.equal(found.body.count, found.body.results.length);
      assert.equal(found.headers.get('content-crs'), RD);
      const hit = found.body.results.find((zaak: { url: string }) => zaak.url === inside);
      assert.ok(Math.abs(hit.zaakgeometrie.coordinates[0] - CONTROL.x) < 0.001);
      const beside = await listIn(`bbox=${[CONTROL.x + 100, CONTROL.y + 100, CONTROL.x + 200, CONTROL.y + 200].join(',')}&bbox-crs=${encodeURIComponent(RD)}`);
      assert.ok(!beside.body.results.some((zaak: { url: string }) => zaak.url === inside));
      const edge = await listIn(`bbox=5.001,52.281,5.0015,52.2815`);
      assert.deepEqual(urls(edge.body), [around], 'a box on the L finds it (CRS84 box, default bbox-crs)');
    });

    it('a box far outside the Netherlands finds nothing; 6 numbers work; a box across the antimeridian is two', async () => {
      const fiji = (await create(point([179.5, -17]))).body.url;
      assert.equal((await listIn('bbox=140,-40,150,-30')).body.count, 0);
      assert.equal((await listIn('bbox=140,-40,0,150,-30,100')).body.count, 0);
      assert.deepEqual(urls((await listIn('bbox=179,-18,-179,-16')).body), [fiji]);
    });

    it('bbox with a zaaktype filter for a limited application leaks nothing it may not see', async () => {
      const open = (await create(square(6.5, 53.0, 0.01), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' })).body.url;
      await create(square(6.505, 53.005, 0.01), {}, { zaaktype: ZAAKTYPE_GEHEIM, vertrouwelijkheidaanduiding: 'openbaar' });
      await create(square(6.502, 53.002, 0.01), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'geheim' });
      const box = 'bbox=6.49,52.99,6.52,53.02';
      assert.equal((await listIn(box)).body.count, 3);
      const limited = await listIn(`${box}&zaaktype=${encodeURIComponent(ZAAKTYPE)}`, 'beperkt');
      assert.deepEqual(urls(limited.body), [open]);
      assert.equal(limited.body.count, 1);
      const other = await listIn(`${box}&zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}`, 'beperkt');
      assert.equal(other.body.count, 0);
    });

    it('refuses unknown crs, bbox-crs and Content-Crs, and malformed boxes, with 400', async () => {
      for (const query of ['crs=EPSG:4326x', 'bbox=1,2,3,4&bbox-crs=http://www.opengis.net/def/crs/EPSG/9.9.1/4326', 'crs=http://www.opengis.net/def/crs/EPSG/9.9.1/2000']) {
        const response = await call(`/zaken?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.invalidParams[0].code, 'unknown-crs');
      }
      for (const bbox of ['1,2,3', '1,2,3,4,5', 'a,2,3,4', '1,2,,4', '1,5,3,4', 'NaN,1,2,3']) {
        const response = await call(`/zaken?bbox=${bbox}`);
        assert.equal(response.status, 400, bbox);
        assert.equal(response.body.invalidParams[0].code, 'invalid-bbox', bbox);
      }
      const notWrapping = await call(`/zaken?bbox=200000,400000,100000,500000&bbox-crs=${encodeURIComponent(RD)}`);
      assert.equal(notWrapping.status, 400, 'RD does not wrap: min > max is an error');
      const body = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: point([5, 52]) }), headers: { 'content-crs': 'EPSG:1234' } });
      assert.equal(body.status, 400);
      assert.equal(body.body.invalidParams[0].name, 'Content-Crs');
    });

    it('validates zaakgeometrie topologically with JTS and against the area of use of its CRS, naming the JSON path', async () => {
      const bowtie = { type: 'Polygon', coordinates: [[[5, 52], [5.1, 52.1], [5.1, 52], [5, 52.1], [5, 52]]] };
      const selfIntersecting = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: bowtie }) });
      assert.equal(selfIntersecting.status, 400);
      assert.deepEqual(
        selfIntersecting.body.invalidParams.map((p: { name: string; code: string }) => [p.name, p.code]),
        [['zaakgeometrie', 'invalid-geometry']],
      );
      assert.match(selfIntersecting.body.invalidParams[0].reason, /zelfdoorsnijding|ring snijdt zichzelf/);
      const collection = { type: 'GeometryCollection', geometries: [point([5, 52]), bowtie] };
      const inCollection = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: collection }) });
      assert.equal(inCollection.status, 400);
      assert.equal(inCollection.body.invalidParams[0].name, 'zaakgeometrie.geometries.1');
      const offWorld = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: { type: 'LineString', coordinates: [[5, 52], [200, 52]] } }) });
      assert.equal(offWorld.status, 400);
      assert.deepEqual([offWorld.body.invalidParams[0].name, offWorld.body.invalidParams[0].code], ['zaakgeometrie.coordinates.1', 'coordinates-out-of-bounds']);
      const offRd = await call('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: point([0, 0]) }), headers: { 'content-crs': RD } });
      assert.equal(offRd.status, 400);
      assert.equal(offRd.body.invalidParams[0].code, 'coordinates-out-of-bounds');
      for (const geometry of [
        { type: 'MultiPoint', coordinates: [[5, 52], [5.1, 52.1, 3]] },
        { type: 'MultiLineString', coordinates: [[[5, 52], [5.1, 52.1]]] },
        { type: 'MultiPolygon', coordinates: [square(5, 52, 0.1).coordinates, square(5.2, 52, 0.1).coordinates] },
        { type: 'GeometryCollection', geometries: [point([5, 52]), square(5, 52, 0.1)] },
      ]) {
        const valid = await create(geometry);
        assert.deepEqual(valid.body.zaakgeometrie, geometry, geometry.type);
      }
    });

    it('honours the ZGW Accept-Crs and Content-Crs headers: EPSG:4326 is GeoJSON lon/lat; crs wins; unsupported Accept-Crs is 406', async () => {
      const zaak = (await create(point([CONTROL.x, CONTROL.y]), { 'content-crs': 'EPSG:28992' })).body;
      const zgw = await call(zaak.url, { headers: { 'accept-crs': 'EPSG:4326' } });
      assert.equal(zgw.status, 200);
      assert.equal(zgw.headers.get('content-crs'), 'EPSG:4326');
      assert.ok(Math.abs(zgw.body.zaakgeometrie.coordinates[0] - CONTROL.lon) < 1e-8, 'lon first');
      const rd = await call(zaak.url, { headers: { 'accept-crs': 'EPSG:28992' } });
      assert.equal(rd.headers.get('content-crs'), 'EPSG:28992');
      assert.ok(Math.abs(rd.body.zaakgeometrie.coordinates[0] - CONTROL.x) < 0.001);
      const both = await call(`${zaak.url}?crs=${encodeURIComponent(RD)}`, { headers: { 'accept-crs': 'EPSG:4326' } });
      assert.equal(both.headers.get('content-crs'), RD, 'the crs parameter wins');
      const refused = await call(zaak.url, { headers: { 'accept-crs': 'EPSG:2154' } });
      assert.equal(refused.status, 406);
      assert.equal(refused.body.code, 'not_acceptable');
    });

    it('POST /zaken/_zoek zaakgeometrie.within: exact, combined with filters and authorization, in filter-crs or Content-Crs', async () => {
      // A triangle; B lies inside its bounding box but outside it, E straddles its edge.
      const triangle = { type: 'Polygon', coordinates: [[[5.8, 51.8], [5.9, 51.8], [5.8, 51.9], [5.8, 51.8]]] };
      const a = (await create(point([5.82, 51.82]), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' })).body.url;
      await create(point([5.88, 51.88]), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' });
      const c = (await create(point([5.83, 51.83]), {}, { zaaktype: ZAAKTYPE_GEHEIM, vertrouwelijkheidaanduiding: 'openbaar' })).body.url;
      const d = (await create(square(5.81, 51.81, 0.02), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' })).body.url;
      await create(square(5.79, 51.81, 0.02), {}, { zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' });
      const search = async (body: Record<string, unknown>, options: { query?: string; headers?: Record<string, string>; app?: 'alles' | 'beperkt' } = {}) => {
        const response = await call(`/zaken/_zoek${options.query ? `?${options.query}` : ''}`, { method: 'POST', json: body, headers: options.headers, app: options.app });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.count, response.body.results.length);
        return urls(response.body);
      };
      assert.deepEqual(await search({ zaakgeometrie: { within: triangle } }), [a, c, d].sort());
      assert.deepEqual(await search({ zaakgeometrie: { within: triangle }, zaaktype: ZAAKTYPE_GEHEIM }), [c]);
      assert.deepEqual(await search({ zaakgeometrie: { within: triangle } }, { app: 'beperkt' }), [a, d].sort(), 'no zaak the application may not see');
      const inRd = transformGeometry(triangle as Geometry, 'CRS84', 'EPSG:28992');
      assert.deepEqual(await search({ zaakgeometrie: { within: inRd } }, { query: `filter-crs=${encodeURIComponent(RD)}` }), [a, c, d].sort());
      assert.deepEqual(await search({ zaakgeometrie: { within: inRd } }, { headers: { 'content-crs': RD } }), [a, c, d].sort());
      assert.deepEqual(
        await search({ zaakgeometrie: { within: triangle } }, { query: `filter-crs=${encodeURIComponent(CRS84)}`, headers: { 'content-crs': RD } }),
        [a, c, d].sort(),
        'filter-crs wins over Content-Crs',
      );
      const unknown = await call('/zaken/_zoek?filter-crs=EPSG:2154', { method: 'POST', json: { zaakgeometrie: { within: triangle } } });
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body.invalidParams.map((p: { name: string; code: string }) => [p.name, p.code]), [['filter-crs', 'unknown-crs']]);
    });
  });

  describe(`geo-crs with storage CRS RD on ${backend.name}`, () => {
    let api: TestServer;
    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [geoCrs({ storageCrs: RD, maxBboxCandidates: 1 })] });
    });
    after(async () => api?.close());

    it('stores RD, answers CRS84 by default, finds by a CRS84 bbox, and refuses a bbox over maxBboxCandidates', async () => {
      const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: point([CONTROL.lon, CONTROL.lat]) }) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('content-crs'), CRS84);
      const [lon, lat] = created.body.zaakgeometrie.coordinates;
      assert.ok(Math.abs(lon - CONTROL.lon) < 1e-8 && Math.abs(lat - CONTROL.lat) < 1e-8);
      const row = await api.registry.services.storage.knex('zaak').where({ uuid: created.body.uuid }).first('zaakgeometrie');
      const [x, y] = row.zaakgeometrie.coordinates;
      assert.ok(Math.abs(x - CONTROL.x) < 0.001 && Math.abs(y - CONTROL.y) < 0.001, 'stored in RD');
      const crss = await api.request('/crss');
      assert.equal(crss.body.storageCrs, RD);
      const found = await api.request(`/zaken?bbox=${CONTROL.lon - 0.001},${CONTROL.lat - 0.001},${CONTROL.lon + 0.001},${CONTROL.lat + 0.001}`);
      assert.equal(found.body.count, 1);
      const second = await api.request('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: point([CONTROL.lon + 0.0005, CONTROL.lat]) }) });
      assert.equal(second.status, 201);
      const tooLarge = await api.request(`/zaken?bbox=${CONTROL.lon - 0.001},${CONTROL.lat - 0.001},${CONTROL.lon + 0.001},${CONTROL.lat + 0.001}`);
      assert.equal(tooLarge.status, 400);
      assert.equal(tooLarge.body.code, 'bbox-too-large', 'more candidates than maxBboxCandidates (1)');
    });
  });
}

for (const backend of BACKENDS) {
  describe(`geo-crs with stored RD copies on ${backend.name}`, () => {
    let api: TestServer;
    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [geoCrs({ storeRdCopy: true })] });
    });
    after(async () => api?.close());
    const rdCopyOf = async (uuid: string) => (await api.registry.services.storage.knex('zaak').where({ uuid }).first('zaakgeometrie_rd')).zaakgeometrie_rd;

    it('writes an RD copy with each geometry, equal to the on-the-fly transformation, and answers RD from it', async () => {
      const shapes = [point([CONTROL.lon, CONTROL.lat]), square(5.1, 52.1, 0.01), point([5, 52, 43.5])];
      const uuids: string[] = [];
      for (const shape of shapes) {
        const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: shape }) });
        assert.equal(created.status, 201, created.text);
        uuids.push(created.body.uuid);
        assert.deepEqual(await rdCopyOf(created.body.uuid), transformGeometry(shape as Geometry, 'CRS84', 'EPSG:28992'), 'the copy is the transformation');
      }
      const list = await api.request(`/zaken?crs=${encodeURIComponent(RD)}`);
      assert.equal(list.headers.get('content-crs'), RD);
      for (const [i, uuid] of uuids.entries()) {
        const zaak = list.body.results.find((z: { uuid: string }) => z.uuid === uuid);
        assert.deepEqual(zaak.zaakgeometrie, transformGeometry(shapes[i] as Geometry, 'CRS84', 'EPSG:28992'));
      }
      const control = list.body.results.find((z: { uuid: string }) => z.uuid === uuids[0]).zaakgeometrie.coordinates;
      assert.ok(Math.abs(control[0] - CONTROL.x) < 0.001 && Math.abs(control[1] - CONTROL.y) < 0.001, 'the RDNAPTRANS2018 control point within 1 mm');

      // The answer in RD is the stored copy: a marked copy shows through; other CRSs still transform.
      await api.registry.services.storage.knex('zaak').where({ uuid: uuids[0] }).update({ zaakgeometrie_rd: JSON.stringify(point([1, 2])) });
      const marked = await api.request(`/zaken/${uuids[0]}`, { headers: { 'accept-crs': 'EPSG:28992' } });
      assert.deepEqual(marked.body.zaakgeometrie.coordinates, [1, 2]);
      assert.equal(marked.headers.get('content-crs'), 'EPSG:28992');
      const inCrs84 = await api.request(`/zaken/${uuids[0]}`);
      assert.deepEqual(inCrs84.body.zaakgeometrie.coordinates, [CONTROL.lon, CONTROL.lat]);

      // A changed geometry gets a new copy in the same write; a removed one loses it.
      const moved = point([5.2, 52.2]);
      assert.equal((await api.request(`/zaken/${uuids[0]}`, { method: 'PATCH', json: { zaakgeometrie: moved } })).status, 200);
      assert.deepEqual(await rdCopyOf(uuids[0]), transformGeometry(moved as Geometry, 'CRS84', 'EPSG:28992'));
      assert.equal((await api.request(`/zaken/${uuids[1]}`, { method: 'PATCH', json: { zaakgeometrie: null } })).status, 200);
      assert.equal(await rdCopyOf(uuids[1]), null);

      // A zaak stored before the option (no copy) is transformed on the fly.
      await api.registry.services.storage.knex('zaak').where({ uuid: uuids[2] }).update({ zaakgeometrie_rd: null });
      const withoutCopy = await api.request(`/zaken/${uuids[2]}?crs=${encodeURIComponent(RD)}`);
      assert.deepEqual(withoutCopy.body.zaakgeometrie, transformGeometry(shapes[2] as Geometry, 'CRS84', 'EPSG:28992'));
    });
  });
}

for (const backend of BACKENDS) {
  describe(`geo-crs bbox index at 100k zaken on ${backend.name}`, () => {
    let api: TestServer;
    before(async function () {
      // A guard against a hang only: 100k rows through the zaak table's triggers take minutes in PGlite on a busy machine.
      this.timeout(600_000);
      api = await startRegistry(await backend.open(), { plugins: [geoCrs()] });
      // 100k zaken on a grid over the Netherlands, written in one statement (the API would take minutes).
      await api.registry.services.storage.knex.raw(`
        insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum,
                          vertrouwelijkheidaanduiding, vertrouwelijkheid_rank, zaakgeometrie, zaakgeometrie_bbox)
        select gen_random_uuid(), 'GEO-' || i, '517439943', ?, '2024-01-01', '517439943', '2024-01-01', 'openbaar', 1,
               jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(x, y)), box(point(x, y), point(x, y))
        from (select i, 3.4 + (i % 400) * 0.009 as x, 50.8 + (i / 400) * 0.0128 as y from generate_series(0, 99999) as i) as grid`, [ZAAKTYPE]);
      await api.registry.services.storage.knex.raw('analyze zaak');
    });
    after(async () => api?.close());

    /** The plans of the SQL statements a request runs that read the bbox column. */
    const plansOf = async (request: () => Promise<unknown>): Promise<string[]> => {
      const knex = api.registry.services.storage.knex;
      const statements: { sql: string; bindings: unknown[] }[] = [];
      const record = (query: { sql: string; bindings?: unknown[] }) => void statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
      knex.on('query', record);
      try {
        await request();
      } finally {
        knex.off('query', record);
      }
      const spatial = statements.filter((statement) => statement.sql.includes('zaakgeometrie_bbox'));
      assert.ok(spatial.length > 0, 'the request reads the bbox column');
      return Promise.all(
        spatial.map(async ({ sql, bindings }) => {
          const plan = await knex.raw(`explain ${sql.replace(/\$\d+/g, '?')}`, bindings as never[]);
          return (plan.rows as { 'QUERY PLAN': string }[]).map((row) => row['QUERY PLAN']).join('\n');
        }),
      );
    };

    it('EXPLAIN shows the GiST index on the bbox column for a town-sized bbox and for _zoek within', async () => {
      let found: Awaited<ReturnType<TestServer['request']>> | undefined;
      for (const plan of await plansOf(async () => (found = await api.request('/zaken?bbox=5.1,52.05,5.15,52.1')))) assert.match(plan, /zaak_zaakgeometrie_bbox/, plan);
      assert.equal(found!.status, 200);
      assert.equal(found!.body.count, 6 * 4, 'the grid points in the box: 6 columns by 4 rows');
      const within = { zaakgeometrie: { within: square(5.1, 52.05, 0.05) } };
      for (const plan of await plansOf(async () => (found = await api.request('/zaken/_zoek', { method: 'POST', json: within })))) {
        assert.match(plan, /zaak_zaakgeometrie_bbox/, plan);
      }
      assert.equal(found!.status, 200);
      assert.equal(found!.body.count, 6 * 4, 'the same grid points lie within the same square');
    });
  });
}

for (const backend of BACKENDS) {
  describe(`geo-crs OGC API Features view on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const call = async (path: string, init: { method?: string; json?: unknown; headers?: Record<string, string>; app?: 'alles' | 'beperkt' } = {}) =>
      api.request(path, { method: init.method ?? 'GET', json: init.json, headers: { ...(await apps.headers(init.app ?? 'alles')), ...init.headers } });
    const feature = (geometry: unknown, properties: Record<string, unknown> = {}) => ({ type: 'Feature', geometry, properties: zaakInput(properties) });

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [geoCrs()], authorization: apps.authorization });
    });
    after(async () => api?.close());

    it('the API root is a landing page linking conformance and collections; conformance lists Part 1 core, GeoJSON and Part 2', async () => {
      const landing = await api.request('');
      assert.equal(landing.status, 200);
      const rels = (landing.body.links as { rel: string; href: string }[]).map((l) => l.rel);
      for (const rel of ['self', 'service-desc', 'conformance', 'data']) assert.ok(rels.includes(rel), rel);
      const conformance = await api.request('/conformance');
      assert.match(conformance.headers.get('content-type') ?? '', /^application\/json/);
      for (const part of ['ogcapi-features-1/1.0/conf/core', 'ogcapi-features-1/1.0/conf/geojson', 'ogcapi-features-2/1.0/conf/crs']) {
        assert.ok((conformance.body.conformsTo as string[]).some((c) => c.endsWith(part)), part);
      }
    });

    it('/collections and /collections/zaken list the CRSs, with storageCrs one of them', async () => {
      const collections = await api.request('/collections');
      assert.equal(collections.status, 200);
      assert.equal(collections.body.crs[0], CRS84);
      const zaken = await api.request('/collections/zaken');
      assert.equal(zaken.body.id, 'zaken');
      assert.ok(zaken.body.crs.includes(zaken.body.storageCrs));
      assert.ok(zaken.body.extent.spatial.bbox[0].length === 4);
      assert.ok((zaken.body.links as { rel: string }[]).some((l) => l.rel === 'items'));
    });

    it('POST /collections/zaken/items creates a zaak from a Feature (201, Location), with the rules of POST /zaken', async () => {
      const created = await call('/collections/zaken/items', { method: 'POST', json: feature(point([CONTROL.x, CONTROL.y])), headers: { 'content-crs': RD } });
      assert.equal(created.status, 201, created.text);
      assert.match(created.headers.get('content-type') ?? '', /^application\/geo\+json/);
      const location = created.headers.get('location')!;
      assert.match(location, /\/collections\/zaken\/items\/[0-9a-f-]{36}$/);
      const item = await call(`${location}?crs=${encodeURIComponent(RD)}`);
      assert.equal(item.status, 200);
      assert.equal(item.body.type, 'Feature');
      assert.equal(item.headers.get('content-crs'), `<${RD}>`);
      assert.ok(Math.abs(item.body.geometry.coordinates[0] - CONTROL.x) < 0.001);
      assert.equal(item.body.properties.zaaktype, ZAAKTYPE);
      assert.ok((item.body.links as { rel: string; href: string }[]).some((l) => l.rel === 'self' && l.href === location));
      const invalid = await call('/collections/zaken/items', { method: 'POST', json: feature({ type: 'Polygon', coordinates: [[[5, 52], [5.1, 52.1], [5.1, 52], [5, 52.1], [5, 52]]] }) });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.invalidParams[0].code, 'invalid-geometry');
      const incomplete = await call('/collections/zaken/items', { method: 'POST', json: { type: 'Feature', geometry: null, properties: { startdatum: '2024-01-01' } } });
      assert.equal(incomplete.status, 400);
    });

    it('GET /collections/zaken/items is a FeatureCollection with numberMatched, links and bbox, as authorized', async () => {
      for (const [x, zaaktype] of [[6.001, ZAAKTYPE], [6.002, ZAAKTYPE], [6.003, ZAAKTYPE_GEHEIM]] as const) {
        const response = await call('/collections/zaken/items', { method: 'POST', json: feature(point([x, 53.3]), { zaaktype, vertrouwelijkheidaanduiding: 'openbaar' }) });
        assert.equal(response.status, 201, response.text);
      }
      const box = 'bbox=6.0005,53.29,6.0035,53.31';
      const first = await call(`/collections/zaken/items?${box}&limit=2`);
      assert.equal(first.status, 200);
      assert.match(first.headers.get('content-type') ?? '', /^application\/geo\+json/);
      assert.equal(first.headers.get('content-crs'), `<${CRS84}>`);
      assert.equal(first.body.type, 'FeatureCollection');
      assert.equal(first.body.numberMatched, 3);
      assert.equal(first.body.numberReturned, 2);
      assert.ok(!Number.isNaN(Date.parse(first.body.timeStamp)));
      const next = (first.body.links as { rel: string; href: string }[]).find((l) => l.rel === 'next');
      assert.ok(next);
      const second = await call(next.href);
      assert.equal(second.body.numberReturned, 1);
      assert.ok((second.body.links as { rel: string }[]).some((l) => l.rel === 'prev'));
      const limited = await call(`/collections/zaken/items?${box}`, { app: 'beperkt' });
      assert.equal(limited.body.numberMatched, 2, 'the limited application sees its zaaktype only');
      assert.ok(limited.body.features.every((f: { properties: { zaaktype: string } }) => f.properties.zaaktype === ZAAKTYPE));
      assert.equal((await api.request('/collections/zaken/items')).status, 401);
      assert.equal((await call(`/collections/zaken/items?crs=${encodeURIComponent(`${OGC}EPSG/9.9.1/4326`)}`)).status, 400);
      assert.equal((await call('/collections/zaken/items?bbox=1,2,3')).status, 400);
    });

    it('GET and POST /_search answer the global search shape, with bbox, crs and authorization', async () => {
      for (const zaaktype of [ZAAKTYPE, ZAAKTYPE_GEHEIM]) {
        const response = await call('/zaken', { method: 'POST', json: zaakInput({ zaaktype, vertrouwelijkheidaanduiding: 'openbaar', zaakgeometrie: point([4.5, 52.9]) }) });
        assert.equal(response.status, 201, response.text);
      }
      const bbox = [4.49, 52.89, 4.51, 52.91];
      const viaGet = await call(`/_search?bbox=${bbox.join(',')}&pageSize=1`);
      assert.equal(viaGet.status, 200, viaGet.text);
      assert.equal(viaGet.body.currentPage, 1);
      assert.equal(viaGet.body.nextPage, 2);
      assert.equal(viaGet.body.pageSize, 1);
      const [item] = viaGet.body._embedded.items;
      assert.equal(item.type, 'zaak');
      assert.equal(item._links.self.href, item.url);
      assert.equal(viaGet.headers.get('content-crs'), CRS84);
      const viaPost = await call(`/_search?crs=${encodeURIComponent(RD)}`, { method: 'POST', json: { bbox }, app: 'beperkt' });
      assert.equal(viaPost.status, 200, viaPost.text);
      assert.equal(viaPost.body._embedded.items.length, 1, 'the limited application sees one of the two');
      assert.equal(viaPost.body.nextPage, null);
      assert.ok(viaPost.body._embedded.items[0].zaakgeometrie.coordinates[0] > 1000, 'in RD');
      assert.equal(viaPost.headers.get('content-crs'), RD);
      assert.equal((await call('/_search', { method: 'POST', json: { bbox: [1, 2, 3, 4, 5] } })).status, 400);
    });
  });
}

for (const backend of BACKENDS) {
  describe(`geo-crs added to a registry with zaken on ${backend.name}`, () => {
    it('its migration converts the geometries stored before it to the storage CRS, in batches, with their boxes', async function () {
      this.timeout(120_000);
      const storage = await backend.open();
      // Two registries in turn on one database: the first, without the plugin, must not close it.
      const shared = Object.create(storage, { close: { value: async () => {} } });
      try {
        const before = await startRegistry(shared, { preset: 'none' });
        const created = await before.request('/zaken', { method: 'POST', json: zaakInput({ zaakgeometrie: point([CONTROL.lon, CONTROL.lat]) }) });
        assert.equal(created.status, 201, created.text);
        await before.close();
        // More zaken than one batch holds: copies of that one, each its own identificatie.
        const knex = storage.knex;
        const columns = ((await knex('information_schema.columns').where({ table_name: 'zaak' }).select('column_name')) as { column_name: string }[])
          .map((c) => c.column_name)
          .filter((name) => !['id', 'uuid', 'identificatie'].includes(name));
        const list = columns.map((c) => `"${c}"`).join(', ');
        await knex.raw(`insert into zaak (uuid, identificatie, ${list}) select gen_random_uuid(), identificatie || '-' || n, ${list} from zaak, generate_series(1, 1500) as n`);

        const after = await startRegistry(shared, { plugins: [geoCrs({ storageCrs: 'EPSG:28992' })] });
        try {
          const rows = (await knex('zaak').select('zaakgeometrie', knex.raw('zaakgeometrie_bbox::text as box'))) as { zaakgeometrie: { coordinates: number[] }; box: string | null }[];
          assert.equal(rows.length, 1501);
          for (const row of rows) {
            assert.ok(Math.abs(row.zaakgeometrie.coordinates[0] - CONTROL.x) < 0.01 && Math.abs(row.zaakgeometrie.coordinates[1] - CONTROL.y) < 0.01, JSON.stringify(row.zaakgeometrie));
            assert.ok(row.box, 'every converted zaak has its box');
          }
          const inBox = await after.request(`/zaken?bbox=${CONTROL.x - 10},${CONTROL.y - 10},${CONTROL.x + 10},${CONTROL.y + 10}&bbox-crs=${encodeURIComponent(RD)}`);
          assert.equal(inBox.status, 200, inBox.text);
          assert.equal(inBox.body.count, 1501);
          // Answered in CRS84 as the zaak was sent.
          const [lon, lat] = inBox.body.results[0].zaakgeometrie.coordinates;
          assert.ok(Math.abs(lon - CONTROL.lon) < 1e-7 && Math.abs(lat - CONTROL.lat) < 1e-7, `${lon} ${lat}`);
        } finally {
          await after.close();
        }
      } finally {
        await storage.close();
      }
    });
  });
}
