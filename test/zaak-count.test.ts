import assert from 'node:assert/strict';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { FOLDED_STRIPE, foldZaakCounts, startCountFolding } from '../src/resources/zaak/count-folding.js';
import type { Knex } from 'knex';
import { pgliteStorage } from '../src/index.js';
import { coreMigrations } from '../src/storage/migrations/index.js';

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

    it('folds the counter rows into one per key, every count exact, also while zaken are written at once', async () => {
      const knex = api.registry.services.storage.knex;
      const unfolded = async () => Number((await knex('zaak_count').whereNot('stripe', FOLDED_STRIPE).count({ n: '*' }))[0].n);
      const level = (i: number) => (i % 3 ? 'openbaar' : 'vertrouwelijk');
      await Promise.all(Array.from({ length: 12 }, (_, i) => create({ vertrouwelijkheidaanduiding: level(i), zaaktype: i % 2 ? ZAAKTYPE : ZAAKTYPE_GEHEIM })));
      assert.ok((await unfolded()) > 0, 'the writes left striped rows');
      // Folds between and beside writes from many connections.
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => create({ vertrouwelijkheidaanduiding: level(i), zaaktype: i % 2 ? ZAAKTYPE : ZAAKTYPE_GEHEIM })),
        ...Array.from({ length: 5 }, () => foldZaakCounts(knex)),
      ]);
      await assertCounts('after writes beside folds');
      await foldZaakCounts(knex);
      assert.equal(await unfolded(), 0);
      const rows = await knex('zaak_count').select('zaaktype', 'vertrouwelijkheid_rank');
      assert.equal(new Set(rows.map((row) => `${row.zaaktype} ${row.vertrouwelijkheid_rank}`)).size, rows.length, 'one row per key');
      await assertCounts('after folding');
      // Writes after a fold count on top of the folded rows.
      await create({ vertrouwelijkheidaanduiding: 'openbaar' });
      await assertCounts('after a write on folded rows');
    });

    if (backend.name === 'PostgreSQL') {
      it('a fold skips the counter row a writer holds, without waiting, and folds it once committed', async () => {
        const knex = api.registry.services.storage.knex;
        await foldZaakCounts(knex);
        const before = await truth();
        const writer = await knex.transaction();
        try {
          await writer.raw(
            `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
             values (gen_random_uuid(), 'HELD-1', '517439943', ?, current_date, '517439943', current_date, 'openbaar', 1)`,
            [ZAAKTYPE],
          );
          // The writer's stripe row is locked until it commits: the fold leaves it.
          assert.equal(await foldZaakCounts(knex), 0);
          await writer.commit();
        } catch (error) {
          await writer.rollback();
          throw error;
        }
        assert.equal((await truth()).all, before.all + 1);
        assert.equal(await foldZaakCounts(knex), 1);
        assert.equal(Number((await knex('zaak_count').whereNot('stripe', FOLDED_STRIPE).count({ n: '*' }))[0].n), 0);
        await assertCounts('after folding a held row');
      });
    }

    it('counts writes from many connections at once, and an emptied table', async () => {
      await Promise.all(Array.from({ length: 20 }, (_, i) => create({ vertrouwelijkheidaanduiding: i % 2 ? 'openbaar' : 'vertrouwelijk' })));
      await assertCounts('after concurrent creates');
      await api.registry.services.storage.knex.raw('truncate zaak cascade');
      await assertCounts('after TRUNCATE');
      assert.equal((await as('alles', '/zaken')).body.count, 0);
    });
  });
}

describe('folding the zaak counter rows in the background', () => {
  const quiet = (warnings: string[]) => ({ debug() {}, info() {}, warn: (message: string) => warnings.push(message), error() {} });
  const pause = () => new Promise((resolve) => setTimeout(resolve, 10));
  /** A migrated database with `n` zaken written by SQL: the triggers leave their counter rows striped. */
  const databaseWith = async (n: number) => {
    const storage = await pgliteStorage({ dataDir: 'memory' });
    await storage.migrate(coreMigrations);
    await addZaken(storage.knex, n);
    return storage;
  };
  const addZaken = (knex: Knex, n: number) =>
    knex.raw(
      `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
       select gen_random_uuid(), 'FOLD-' || left(gen_random_uuid()::text, 30), '517439943', ?, current_date, '517439943', current_date, 'openbaar', 1 from generate_series(1, ?)`,
      [ZAAKTYPE, n],
    );
  const unfolded = async (knex: Knex) => Number((await knex('zaak_count').whereNot('stripe', FOLDED_STRIPE).count({ n: '*' }))[0].n);
  const untilFolded = async (knex: Knex) => {
    for (let i = 0; i < 200 && (await unfolded(knex)) > 0; i++) await pause();
    return unfolded(knex);
  };

  it('folds at once and then every interval, until stopped', async () => {
    const storage = await databaseWith(3);
    const warnings: string[] = [];
    try {
      assert.equal(await unfolded(storage.knex), 1, 'the insert left its stripe');
      const folding = startCountFolding(storage.knex, quiet(warnings), 20);
      assert.equal(await untilFolded(storage.knex), 0, 'folded at once');
      await addZaken(storage.knex, 2);
      assert.equal(await untilFolded(storage.knex), 0, 'folded on the interval');
      await folding.stop();
      await addZaken(storage.knex, 1);
      await new Promise((resolve) => setTimeout(resolve, 60));
      assert.equal(await unfolded(storage.knex), 1, 'no fold after stop');
      assert.equal(Number((await storage.knex('zaak_count').sum({ n: 'n' }))[0].n), 6);
      assert.deepEqual(warnings, []);
    } finally {
      await storage.close();
    }
  });

  it('a registry folds the rows it finds when it starts', async () => {
    const storage = await databaseWith(4);
    const api = await startRegistry(storage);
    try {
      assert.equal(await untilFolded(storage.knex), 0);
      assert.equal((await api.request('/zaken')).body.count, 4);
    } finally {
      await api.close();
    }
  });

  it('logs a fold that fails and goes on', async () => {
    // A database without the registry's tables: every fold fails.
    const storage = await pgliteStorage({ dataDir: 'memory' });
    const warnings: string[] = [];
    const folding = startCountFolding(storage.knex, quiet(warnings), 10);
    try {
      for (let i = 0; i < 100 && warnings.length < 2; i++) await pause();
      assert.ok(warnings.length >= 2, `warnings: ${warnings.length}`);
      assert.match(warnings[0], /folding the zaak counter rows failed/);
    } finally {
      await folding.stop();
      await storage.close();
    }
  });
});
