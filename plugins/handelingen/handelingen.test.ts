import assert from 'node:assert/strict';
import { archive, zrcRules } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { parts, registreren } from '../../test/helpers/handelingen.js';
import { TYPES, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { handelingen } from './index.js';

for (const backend of BACKENDS) {
  describe(`handelingen on ${backend.name}`, () => {
    let api: TestServer;
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => api.request(path, { method: 'POST', json, headers });
    const registered = async (body = registreren()) => {
      const response = await post('/zaak_registreren', body);
      assert.equal(response.status, 201, response.text);
      return response.body;
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [zrcRules(), archive(), handelingen()] });
    });
    after(() => api?.close());

    it('zaak_registreren: 201 with the zaak as read back, its status, rollen and zaakobjecten, each as its own read shows it', async () => {
      const answer = await registered();
      assert.deepEqual(Object.keys(answer).sort(), ['rollen', 'status', 'zaak', 'zaakinformatieobjecten', 'zaakobjecten']);
      assert.deepEqual((await api.request(`/zaken/${answer.zaak.uuid}`)).body, answer.zaak);
      assert.equal(answer.zaak.status, answer.status.url, 'the zaak is read back after its status');
      assert.deepEqual((await api.request(answer.status.url)).body, answer.status);
      assert.equal(answer.rollen.length, 3);
      for (const rol of answer.rollen) assert.deepEqual((await api.request(rol.url)).body, rol);
      assert.deepEqual(answer.zaakobjecten.map((o: any) => o.object), ['http://bag.test/panden/1', 'http://bag.test/panden/2']);
      assert.deepEqual(answer.zaakinformatieobjecten, []);
    });

    it('zaak_afsluiten closes the zaak: resultaat, eindstatus, einddatum', async () => {
      const { zaak } = await registered();
      const response = await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: { omschrijving: 'Afgehandeld' }, resultaat: parts.resultaat(), status: parts.eindstatus() });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.zaak.einddatum, '2024-03-05');
      assert.equal(response.body.zaak.omschrijving, 'Afgehandeld');
      assert.equal(response.body.zaak.resultaat, response.body.resultaat.url);
      assert.equal(response.body.status.statustype, TYPES.statustypeEind);
    });
  });
}
