import assert from 'node:assert/strict';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/**
 * The count of GET /zaken comes from counter rows kept by triggers (core/004_zaak_count) when only
 * authorization and zaaktype filter: it must equal count(*) after every kind of write.
 */
for (const backend of BACKENDS) {
  describe(`exact zaak counts on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const as = async (clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
    const create = async (overrides: Record<string, unknown>) => {
      const response = await as('alles', '/zaken', { method: 'POST', json: zaakInput(overrides) });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    /** What count(*) says, for the rows `beperkt` may read (ZAAKTYPE up to zaakvertrouwelijk) and for all. */
    const truth = async () => {
      const knex = api.registry.services.storage.knex;
      const all = Number((await knex('zaak').count({ n: '*' }))[0].n);
      const readable = Number((await knex('zaak').where('zaaktype', ZAAKTYPE).where('vertrouwelijkheid_rank', '<=', 4).count({ n: '*' }))[0].n);
      const ofType = Number((await knex('zaak').where('zaaktype', ZAAKTYPE_GEHEIM).count({ n: '*' }))[0].n);
      return { all, readable, ofType };
    };
    const assertCounts = async (when: string) => {
      const expected = await truth();
      assert.equal((await as('alles', '/zaken')).body.count, expected.all, `${when}: all`);
      assert.equal((await as('beperkt', '/zaken')).body.count, expected.readable, `${when}: limited application`);
      assert.equal((await as('alles', `/zaken?zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}`)).body.count, expected.ofType, `${when}: zaaktype filter`);
      const search = await as('alles', '/zaken/_zoek', { method: 'POST', json: { zaaktype__in: [ZAAKTYPE, ZAAKTYPE_GEHEIM] } });
      assert.equal(search.body.count, expected.all, `${when}: zaaktype__in`);
      // Another filter counts the zaak table itself: the same answer.
      assert.equal((await as('alles', '/zaken?archiefstatus=nog_te_archiveren')).body.count, expected.all, `${when}: archiefstatus filter`);
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: apps.authorization });
    });
    after(async () => api?.close());

    it('stays exact through creates, changes of type and confidentiality, deletes and cascades', async () => {
      await assertCounts('empty');
      const open = await create({ vertrouwelijkheidaanduiding: 'openbaar' });
      const hoofdzaak = await create({ vertrouwelijkheidaanduiding: 'intern' });
      await create({ vertrouwelijkheidaanduiding: 'geheim' });
      await create({ zaaktype: ZAAKTYPE_GEHEIM });
      await create({ hoofdzaak: hoofdzaak.url, vertrouwelijkheidaanduiding: 'openbaar' });
      await create({ hoofdzaak: hoofdzaak.url });
      await assertCounts('after creates');
      assert.equal((await as('beperkt', '/zaken')).body.count, 4);

      assert.equal((await as('alles', open.url, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'geheim' } })).status, 200);
      await assertCounts('after raising confidentiality');
      assert.equal((await as('alles', open.url, { method: 'PATCH', json: { omschrijving: 'alleen tekst' } })).status, 200);
      await assertCounts('after a change that moves nothing');

      // Destroying the hoofdzaak takes its deelzaken along (ON DELETE CASCADE): the triggers see those too.
      assert.equal((await as('alles', hoofdzaak.url, { method: 'DELETE' })).status, 204);
      await assertCounts('after a cascade');
      assert.equal((await as('beperkt', '/zaken')).body.count, 0);
    });

    it('counts writes from many connections at once, and an emptied table', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => create({ vertrouwelijkheidaanduiding: i % 2 ? 'openbaar' : 'vertrouwelijk' })));
      await assertCounts('after concurrent creates');
      await api.registry.services.storage.knex.raw('truncate zaak cascade');
      await assertCounts('after TRUNCATE');
      assert.equal((await as('alles', '/zaken')).body.count, 0);
    });
  });
}
