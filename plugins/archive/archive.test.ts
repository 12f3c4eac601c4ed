import assert from 'node:assert/strict';
import { startTestRegistry, TEST_RSIN, type TestRegistry } from 'zaakregister/testing';
import { BACKENDS } from '../../test/helpers/backends.js';
import { startResourceServer, type ResourceServer } from '../../test/helpers/zgw-servers.js';
import { startZgwWorld, type ZgwWorld } from '../../test/helpers/zgw-world.js';
import { addDuration, parseDate } from './derivation.js';

describe('archive: calendar arithmetic', () => {
  it('adds ISO 8601 durations by the calendar', () => {
    const cases: [string, string, string][] = [
      ['2024-01-31', 'P1M', '2024-02-29'],
      ['2023-01-31', 'P1M', '2023-02-28'],
      ['2024-02-29', 'P1Y', '2025-02-28'],
      ['2024-02-29', 'P4Y', '2028-02-29'],
      ['2024-03-01', 'P2W', '2024-03-15'],
      ['2024-12-31', 'P1Y2M10D', '2026-03-10'],
      ['2024-03-01', 'PT36H', '2024-03-02'],
      ['2024-03-01', 'P0D', '2024-03-01'],
    ];
    for (const [date, duration, expected] of cases) assert.equal(addDuration(date, duration), expected, `${date} + ${duration}`);
  });

  it('reads dates in the forms property values use, and refuses impossible ones', () => {
    assert.equal(parseDate('2024-03-01'), '2024-03-01');
    assert.equal(parseDate('20240301'), '2024-03-01');
    assert.equal(parseDate('2024-03-01T23:00:00Z'), '2024-03-01');
    for (const bad of ['2024-02-30', 'morgen', '', null, 20240301]) assert.equal(parseDate(bad), undefined, String(bad));
  });
});

for (const backend of BACKENDS) {
  describe(`archive plugin (zrc-021) on ${backend.name}`, function () {
    let world: ZgwWorld;
    let remote: ResourceServer;
    let api: TestRegistry;
    const resultaattypen: Record<string, string> = {};

    const post = (path: string, json: unknown) => api.request(path, { method: 'POST', json });
    const created = async (path: string, json: unknown) => {
      const response = await post(path, json);
      assert.equal(response.status, 201, `${path}: ${response.text}`);
      return response.body;
    };
    const newZaak = (extra: Record<string, unknown> = {}) =>
      created('/zaken', { zaaktype: world.zaaktype, bronorganisatie: TEST_RSIN, verantwoordelijkeOrganisatie: TEST_RSIN, startdatum: '2024-01-01', ...extra });
    /** Gives the zaak a resultaat of `kind` and closes it on `day` (the client's own date); the zaak afterwards. */
    const close = async (zaak: any, kind: string, day = '2024-03-05') => {
      await created('/resultaten', { zaak: zaak.url, resultaattype: resultaattypen[kind] });
      const response = await post('/statussen', { zaak: zaak.url, statustype: world.types.statusEnd, datumStatusGezet: `${day}T10:00:00+01:00` });
      return { response, zaak: (await api.request(zaak.url)).body };
    };
    const archived = (z: any) => [z.archiefnominatie, z.archiefactiedatum, z.startdatumBewaartermijn];

    before(async () => {
      world = await startZgwWorld();
      remote = await startResourceServer();
      const c = (path: string) => `${world.catalog.origin}/catalogi/api/v1${path}`;
      const eigenschap = world.catalog.put('/catalogi/api/v1/eigenschappen/vervaldatum', { url: c('/eigenschappen/vervaldatum'), zaaktype: world.zaaktype, naam: 'vervaldatum' });
      const procedures: Record<string, Record<string, unknown>> = {
        afgehandeld: {},
        hoofdzaak: {},
        eigenschap: { datumkenmerk: 'vervaldatum' },
        ander_datumkenmerk: {},
        zaakobject: { objecttype: 'pand', datumkenmerk: 'record.data.sloopdatum' },
        termijn: { procestermijn: 'P1M' },
        gerelateerde_zaak: {},
        ingangsdatum_besluit: {},
        vervaldatum_besluit: {},
      };
      for (const [afleidingswijze, extra] of Object.entries(procedures)) {
        const path = `/resultaattypen/${afleidingswijze}`;
        resultaattypen[afleidingswijze] = world.catalog.put(`/catalogi/api/v1${path}`, {
          url: c(path),
          zaaktype: world.zaaktype,
          archiefnominatie: 'vernietigen',
          archiefactietermijn: 'P10Y',
          brondatumArchiefprocedure: { afleidingswijze, datumkenmerk: '', objecttype: '', procestermijn: null, ...extra },
        });
      }
      const lokaal = '/resultaattypen/zaakobject-lokaal';
      resultaattypen.zaakobjectLokaal = world.catalog.put(`/catalogi/api/v1${lokaal}`, {
        url: c(lokaal),
        zaaktype: world.zaaktype,
        archiefnominatie: 'vernietigen',
        archiefactietermijn: 'P10Y',
        brondatumArchiefprocedure: { afleidingswijze: 'zaakobject', datumkenmerk: 'overigeData.peildatum', objecttype: 'overige', procestermijn: null },
      });
      const path = '/resultaattypen/zonder-termijn';
      resultaattypen.zonderTermijn = world.catalog.put(`/catalogi/api/v1${path}`, {
        url: c(path),
        zaaktype: world.zaaktype,
        archiefnominatie: 'blijvend_bewaren',
        archiefactietermijn: null,
        brondatumArchiefprocedure: { afleidingswijze: 'afgehandeld' },
      });
      // The zaaktype lists them before the registry ever fetches it (its catalog caches types).
      const zaaktypePath = new URL(world.zaaktype).pathname;
      const zaaktype = world.catalog.resources.get(zaaktypePath) as Record<string, unknown[]>;
      world.catalog.resources.set(zaaktypePath, {
        ...zaaktype,
        resultaattypen: [...zaaktype.resultaattypen, ...Object.values(resultaattypen)],
        eigenschappen: [...zaaktype.eigenschappen, eigenschap],
      });
      api = await startTestRegistry({ storage: await backend.open(), catalog: undefined, remote: { allowedHosts: [...world.allowedHosts, remote.host] } });
    });
    after(async () => {
      await api?.close();
      await remote?.close();
      await world?.close();
    });

    it('afgehandeld: einddatum + term; nominatie from the resultaattype; retention starts at the brondatum', async () => {
      const { response, zaak } = await close(await newZaak(), 'afgehandeld');
      assert.equal(response.status, 201, response.text);
      assert.deepEqual(archived(zaak), ['vernietigen', '2034-03-05', '2024-03-05']);
    });

    it('hoofdzaak: the hoofdzaak’s einddatum; none while it is open', async () => {
      const hoofdzaak = await newZaak();
      const early = await newZaak({ hoofdzaak: hoofdzaak.url });
      assert.deepEqual(archived((await close(early, 'hoofdzaak')).zaak), ['vernietigen', null, null], 'hoofdzaak still open: no date');
      await close(hoofdzaak, 'afgehandeld', '2024-01-10');
      const late = await newZaak({ hoofdzaak: hoofdzaak.url });
      assert.deepEqual(archived((await close(late, 'hoofdzaak')).zaak), ['vernietigen', '2034-01-10', '2024-01-10']);
    });

    it('eigenschap: the date in the named property; an unparseable one is a 400 and the zaak stays open', async () => {
      const zaak = await newZaak();
      const eigenschap = await created(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: `${world.catalog.origin}/catalogi/api/v1/eigenschappen/vervaldatum`, waarde: 'morgen' });
      const refused = await close(zaak, 'eigenschap');
      assert.equal(refused.response.status, 400);
      assert.deepEqual([refused.response.body.invalidParams[0].name, refused.response.body.invalidParams[0].code], ['nonFieldErrors', 'archiefactiedatum-error']);
      assert.equal(refused.zaak.einddatum, null);
      assert.equal((await api.request(eigenschap.url, { method: 'PATCH', json: { waarde: '2025-06-30' } })).status, 200);
      const closed = await post('/statussen', { zaak: zaak.url, statustype: world.types.statusEnd, datumStatusGezet: '2024-03-05T10:00:00+01:00' });
      assert.equal(closed.status, 201, closed.text);
      assert.deepEqual(archived((await api.request(zaak.url)).body), ['vernietigen', '2035-06-30', '2025-06-30']);
    });

    it('ander_datumkenmerk: no date is derived (set by hand)', async () => {
      assert.deepEqual(archived((await close(await newZaak(), 'ander_datumkenmerk')).zaak), ['vernietigen', null, null]);
    });

    it('zaakobject: the latest datumkenmerk among the fetched objects of the objecttype', async () => {
      const zaak = await newZaak();
      const object = (id: string, sloopdatum: string) => remote.put(`/objects/api/v2/objects/${id}`, { url: `${remote.origin}/objects/api/v2/objects/${id}`, record: { data: { sloopdatum } } });
      for (const [objectType, url] of [
        ['pand', object('a', '2024-05-01')],
        ['pand', object('b', '2024-07-01')],
        ['adres', object('c', '2026-01-01')],
      ]) {
        await created('/zaakobjecten', { zaak: zaak.url, objectType, object: url });
      }
      assert.deepEqual(archived((await close(zaak, 'zaakobject')).zaak), ['vernietigen', '2034-07-01', '2024-07-01']);
    });

    it('zaakobject: also reads objectIdentificatie (local data), in the date forms Open Zaak accepts, the latest of several', async () => {
      const zaak = await newZaak();
      for (const peildatum of ['2013-1-1', '2013-12-3T10:00:00+01:00', '20130601']) {
        await created('/zaakobjecten', { zaak: zaak.url, objectType: 'overige', objectTypeOverige: 'meting', objectIdentificatie: { overigeData: { peildatum } } });
      }
      assert.deepEqual(archived((await close(zaak, 'zaakobjectLokaal')).zaak), ['vernietigen', '2023-12-03', '2013-12-03']);
    });

    it('termijn: einddatum + procestermijn, calendar-correct (31 January + P1M in a leap year)', async () => {
      assert.deepEqual(archived((await close(await newZaak(), 'termijn', '2024-01-31')).zaak), ['vernietigen', '2034-02-28', '2024-02-29']);
    });

    it('gerelateerde_zaak: the latest einddatum of the related zaken, here and in another registry', async () => {
      const local = await newZaak();
      await close(local, 'afgehandeld', '2024-02-01');
      const elsewhere = remote.put('/zaken/api/v1/zaken/elders', { url: `${remote.origin}/zaken/api/v1/zaken/elders`, identificatie: 'E-1', zaaktype: world.zaaktypeOther, einddatum: '2024-04-01' });
      const zaak = await newZaak({ relevanteAndereZaken: [{ url: local.url, aardRelatie: 'vervolg' }, { url: elsewhere, aardRelatie: 'onderwerp' }] });
      assert.deepEqual(archived((await close(zaak, 'gerelateerde_zaak')).zaak), ['vernietigen', '2034-04-01', '2024-04-01']);
    });

    for (const [kind, dates, expected] of [
      ['ingangsdatum_besluit', [{ ingangsdatum: '2024-02-01' }, { ingangsdatum: '2024-03-01' }], '2024-03-01'],
      ['vervaldatum_besluit', [{ vervaldatum: '2025-01-01' }, { vervaldatum: null }], '2025-01-01'],
    ] as const) {
      it(`${kind}: the latest of the fetched besluiten`, async () => {
        const zaak = await newZaak();
        for (const [index, fields] of dates.entries()) {
          const besluit = remote.put(`/besluiten/api/v1/besluiten/${kind}-${index}`, { url: `${remote.origin}/besluiten/api/v1/besluiten/${kind}-${index}`, ...fields });
          await created(`/zaken/${zaak.uuid}/besluiten`, { besluit });
        }
        const [year, rest] = [Number(expected.slice(0, 4)), expected.slice(4)];
        assert.deepEqual(archived((await close(zaak, kind)).zaak), ['vernietigen', `${year + 10}${rest}`, expected]);
      });
    }

    it('a besluit its registry does not serve: 502 bad_gateway, no status, the zaak stays open', async () => {
      const zaak = await newZaak();
      await created(`/zaken/${zaak.uuid}/besluiten`, { besluit: `${remote.origin}/besluiten/api/v1/besluiten/weg` });
      const { response, zaak: after } = await close(zaak, 'ingangsdatum_besluit');
      assert.deepEqual([response.status, response.body.code], [502, 'bad_gateway'], response.text);
      assert.deepEqual([after.einddatum, after.status], [null, null]);
    });

    it('no term → no date; a nominatie the zaak already has is kept; blijvend_bewaren has no retention start', async () => {
      assert.deepEqual(archived((await close(await newZaak(), 'zonderTermijn')).zaak), ['blijvend_bewaren', null, null]);
      const kept = await newZaak({ archiefnominatie: 'blijvend_bewaren' });
      assert.deepEqual(archived((await close(kept, 'afgehandeld')).zaak), ['blijvend_bewaren', '2034-03-05', null]);
    });

    it('reopening clears the derived values; closing again derives them anew', async () => {
      const { zaak } = await close(await newZaak(), 'afgehandeld');
      assert.equal(zaak.archiefactiedatum, '2034-03-05');
      const reopened = await post('/statussen', { zaak: zaak.url, statustype: world.types.statusStart, datumStatusGezet: '2024-03-06T10:00:00+01:00' });
      assert.equal(reopened.status, 201, reopened.text);
      const open = (await api.request(zaak.url)).body;
      assert.deepEqual([open.einddatum, open.archiefnominatie, open.archiefactiedatum, open.startdatumBewaartermijn], [null, null, null, null]);
      const again = await post('/statussen', { zaak: zaak.url, statustype: world.types.statusEnd, datumStatusGezet: '2024-04-01T10:00:00+01:00' });
      assert.equal(again.status, 201, again.text);
      const closed = (await api.request(zaak.url)).body;
      assert.deepEqual(archived(closed), ['vernietigen', '2034-04-01', '2024-04-01']);
      assert.equal(closed.einddatum, '2024-04-01');
    });

    it('a retention start set during handling is kept at closing', async () => {
      const zaak = await newZaak();
      assert.equal((await api.request(zaak.url, { method: 'PATCH', json: { startdatumBewaartermijn: '2024-02-15' } })).status, 200);
      assert.deepEqual(archived((await close(zaak, 'afgehandeld')).zaak), ['vernietigen', '2034-03-05', '2024-02-15']);
    });
  });
}
