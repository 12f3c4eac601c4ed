import assert from 'node:assert/strict';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { createZaakFamily } from './helpers/zaak-family.js';

/** A zaak's revision (core/005_zaak_revision): renewed by triggers with every change a zaak's representations show. */
for (const backend of BACKENDS) {
  describe(`zaak revision on ${backend.name}`, () => {
    let api: TestServer;
    const revision = async (uuid: string) =>
      String((await api.registry.services.storage.knex('zaak').join('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').where({ uuid }).first('revision')).revision);
    const request = async (url: string, method: string, json?: unknown) => {
      const response = await api.request(url, { method, json });
      assert.ok(response.status < 300, `${method} ${url}: ${response.text}`);
      return response.body;
    };
    /** Asserts that `change` renews the revision of each zaak in `renewed` and of no zaak in `kept`. */
    const expectRenewal = async (what: string, change: () => Promise<unknown>, renewed: string[], kept: string[] = []) => {
      const before = new Map(await Promise.all([...renewed, ...kept].map(async (uuid) => [uuid, await revision(uuid)] as const)));
      await change();
      for (const uuid of renewed) assert.notEqual(await revision(uuid), before.get(uuid), `${what}: renews ${uuid}`);
      for (const uuid of kept) assert.equal(await revision(uuid), before.get(uuid), `${what}: keeps ${uuid}`);
    };

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());

    it('changes with the zaak and every kind of record, and with nothing else', async () => {
      const family = await createZaakFamily(api);
      const other = await request('/zaken', 'POST', zaakInput());
      const zaak = family.zaak.uuid;
      await expectRenewal('reading', () => api.request(family.zaak.url), [], [zaak]);
      await expectRenewal('PATCH zaak', () => request(family.zaak.url, 'PATCH', { omschrijving: 'anders' }), [zaak], [other.uuid]);
      await expectRenewal('new status', () => request('/statussen', 'POST', { zaak: family.zaak.url, statustype: TYPES.statustypeEind, datumStatusGezet: '2024-04-01T10:00:00Z' }), [zaak], [other.uuid]);
      await expectRenewal('zaakobject changed', () => request(family.zaakobject.url, 'PATCH', { relatieomschrijving: 'ander' }), [zaak]);
      await expectRenewal('zaakobject moved', () => request(family.zaakobject.url, 'PATCH', { zaak: other.url }), [zaak, other.uuid]);
      await expectRenewal('klantcontact created', () => request('/klantcontacten', 'POST', { zaak: family.zaak.url, datumtijd: '2024-04-01T09:00:00Z' }), [zaak]);
      // Klantcontacten have no DELETE in the contract; every other record is deleted once.
      for (const record of ['rol', 'zaakinformatieobject', 'zaakeigenschap', 'zaakcontactmoment', 'zaakverzoek', 'besluit', 'resultaat'] as const) {
        await expectRenewal(`${record} deleted`, () => request(family[record].url, 'DELETE'), [zaak], [other.uuid]);
      }
    });

    it('changes a hoofdzaak when a deelzaak comes, moves or goes, also in a cascade', async () => {
      const [first, second] = [await request('/zaken', 'POST', zaakInput()), await request('/zaken', 'POST', zaakInput())];
      let deelzaak: any;
      await expectRenewal('deelzaak created', async () => (deelzaak = await request('/zaken', 'POST', zaakInput({ hoofdzaak: first.url }))), [first.uuid], [second.uuid]);
      await expectRenewal('deelzaak moved', () => request(deelzaak.url, 'PATCH', { hoofdzaak: second.url }), [first.uuid, second.uuid, deelzaak.uuid]);
      await expectRenewal('deelzaak changed in place', () => request(deelzaak.url, 'PATCH', { omschrijving: 'x' }), [deelzaak.uuid], [first.uuid, second.uuid]);
      await request('/statussen', 'POST', { zaak: deelzaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-04-01T10:00:00Z' });
      await expectRenewal('deelzaak destroyed', () => request(deelzaak.url, 'DELETE'), [second.uuid], [first.uuid]);

      // A hoofdzaak destroyed with its deelzaken and their records: the triggers of the cascade run cleanly.
      const last = await request('/zaken', 'POST', zaakInput({ hoofdzaak: first.url }));
      await request('/statussen', 'POST', { zaak: last.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-04-01T10:00:00Z' });
      await request(first.url, 'DELETE');
      assert.equal((await api.request(last.url)).status, 404);
    });
  });
}
