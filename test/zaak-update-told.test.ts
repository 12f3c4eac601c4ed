import assert from 'node:assert/strict';
import { BACKENDS } from './helpers/backends.js';
import { RSIN_2, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { roundTripsDuring } from './helpers/statements.js';

/**
 * A zaak's update answers the zaak as it is now without reading it back: its row as the update's
 * transaction locked it (with its records), with the changed columns as the database stores them.
 */
for (const backend of BACKENDS) {
  describe(`a zaak's update told without reading it back on ${backend.name}`, () => {
    let api: TestServer;
    const create = async (overrides: Record<string, unknown> = {}) => {
      const created = await api.request('/zaken', { method: 'POST', json: zaakInput(overrides) });
      assert.equal(created.status, 201, created.text);
      return created.body;
    };
    const patch = (uuid: string, json: Record<string, unknown>) => api.request(`/zaken/${uuid}`, { method: 'PATCH', json });
    /** The zaak's own statements (not the outbox dispatcher's) that read it. */
    const zaakReads = (sent: string[]) => sent.flatMap((text) => text.split(/\n;\n/)).filter((sql) => !/outbox/.test(sql) && /^\s*(select .* from "zaak"|EXECUTE "zaak_by_uuid)/is.test(sql));

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());

    it('answers a PATCH with the bytes a read of the zaak then gives, for every kind of field', async () => {
      const other = await create();
      const zaak = await create({ kenmerken: [{ kenmerk: 'K0', bron: 'B' }] });
      await api.request('/rollen', {
        method: 'POST',
        json: { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: 'http://catalogus.test/catalogi/api/v1/roltypen/52222222-2222-4222-8222-222222222222', roltoelichting: 'x', betrokkeneIdentificatie: { identificatie: 'm1' } },
      });
      const changes: Record<string, unknown>[] = [
        { toelichting: 'Bijgewerkt', einddatumGepland: '2024-04-01', publicatiedatum: null },
        { productenOfDiensten: ['https://producten.test/1'], betalingsindicatie: 'gedeeltelijk' },
        // An offset and microseconds: the database answers the instant in UTC, to the millisecond.
        { laatsteBetaaldatum: '2024-03-05T10:11:12.345678+02:00' },
        // Not RFC 3339's plain form: read back, as the database converts it.
        { laatsteBetaaldatum: '2024-03-05t08:11:12z' },
        // Keys out of jsonb's order (it puts shorter ones first): the answer has them as a read does.
        { zaakgeometrie: { coordinates: [5.1, 52.1], type: 'Point' }, kenmerken: [{ kenmerk: 'K1', bron: 'Bron met een langere naam' }] },
        { verlenging: { reden: 'Drukte', duur: 'P5D' }, opschorting: { indicatie: true, reden: 'Wacht' } },
        { vertrouwelijkheidaanduiding: 'vertrouwelijk', archiefnominatie: 'blijvend_bewaren', archiefactiedatum: '2030-01-01' },
        { relevanteAndereZaken: [{ url: other.url, aardRelatie: 'vervolg' }], opdrachtgevendeOrganisatie: RSIN_2 },
        { processobject: { registratie: 'BRK', objecttype: 'Perceel', identificatie: '42', datumkenmerk: '2024-01-01' }, processobjectaard: 'Een aard' },
        // A new hoofdzaak: its uuid is joined, so the zaak is read back.
        { hoofdzaak: other.url },
        { identificatie: 'EIGEN-42', omschrijving: 'Hernoemd' },
      ];
      for (const change of changes) {
        const updated = await patch(zaak.uuid, change);
        assert.equal(updated.status, 200, updated.text);
        assert.equal(updated.text, (await api.request(`/zaken/${zaak.uuid}`)).text, JSON.stringify(change));
      }
    });

    it('reads the zaak once, locked with its records, and then not again', async () => {
      const zaak = await create();
      const reads: string[][] = [];
      // The fewest of three: once its statements are prepared on the connection they run on.
      for (let i = 0; i < 3; i++) reads.push(zaakReads(await roundTripsDuring(() => patch(zaak.uuid, { toelichting: `keer ${i}` }))));
      const fewest = reads.reduce((best, run) => (run.length < best.length ? run : best));
      // Before the transaction (authorization) and locked inside it.
      assert.equal(fewest.length, 2, fewest.join('\n---\n'));
      assert.match(fewest[1], /for update|_locked/i);
    });
  });
}
