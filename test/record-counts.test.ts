import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { FOLDED_STRIPE, foldRecordCounts } from '../src/resources/zaak/count-folding.js';
import { pgliteStorage } from '../src/index.js';
import { coreMigrations } from '../src/storage/migrations/index.js';

/** The lists checked, by the table they list. */
const LISTS = { status: '/statussen', rol: '/rollen', zaakobject: '/zaakobjecten' } as const;
type Kind = keyof typeof LISTS;

/** What count(*) says of a kind's records: all, those `beperkt` may read (ZAAKTYPE up to zaakvertrouwelijk), those of one zaak. */
async function truth(knex: Knex, kind: Kind, zaakId?: number) {
  const of = () => knex(kind).join('zaak', 'zaak.id', `${kind}.zaak_id`);
  const count = async (query: Knex.QueryBuilder) => Number((await query.count({ n: '*' }))[0].n);
  return {
    all: await count(of()),
    readable: await count(of().where('zaak.zaaktype', ZAAKTYPE).where('zaak.vertrouwelijkheid_rank', '<=', 4)),
    ofZaak: zaakId === undefined ? 0 : await count(of().where('zaak.id', zaakId)),
  };
}

/** The sum of the counter rows of a kind: the triggers' answer, read directly. */
const counted = async (knex: Knex, kind: string) => Number((await knex('record_count').where({ kind }).sum({ n: 'n' }))[0].n ?? 0);

/**
 * The `count` of a record list comes from counter rows kept by triggers (core/018_record_count) when
 * only authorization applies: it must equal count(*) of what the caller may read after every kind of write.
 */
for (const backend of BACKENDS) {
  describe(`exact record counts on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const as = async (clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
    const post = async (path: string, json: unknown) => {
      const response = await as('alles', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const zaak = (overrides: Record<string, unknown> = {}) => post('/zaken', zaakInput(overrides));
    const status = (zaakUrl: string) => post('/statussen', { zaak: zaakUrl, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
    const rol = (zaakUrl: string) =>
      post('/rollen', { zaak: zaakUrl, betrokkeneType: 'natuurlijk_persoon', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'behandelt', betrokkeneIdentificatie: { inpBsn: '111222333' } });
    const zaakobject = (zaakUrl: string) => post('/zaakobjecten', { zaak: zaakUrl, objectType: 'overige', objectTypeOverige: 'boom', object: 'http://objecten.test/boom/1' });
    const idOf = async (url: string) => Number((await api.registry.services.storage.knex('zaak').where('uuid', url.split('/').pop()).first('id')).id);

    /** Every list's count, for an application with all autorisaties, a limited one, and with `?zaak=` (counted by the join). */
    const assertCounts = async (when: string, filterZaak?: string) => {
      const knex = api.registry.services.storage.knex;
      for (const [kind, path] of Object.entries(LISTS) as [Kind, string][]) {
        const expected = await truth(knex, kind, filterZaak ? await idOf(filterZaak) : undefined);
        assert.equal(await counted(knex, kind), expected.all, `${when}: ${kind} counter rows`);
        assert.equal((await as('alles', path)).body.count, expected.all, `${when}: ${path} all`);
        assert.equal((await as('beperkt', path)).body.count, expected.readable, `${when}: ${path} limited application`);
        if (filterZaak) assert.equal((await as('alles', `${path}?zaak=${encodeURIComponent(filterZaak)}`)).body.count, expected.ofZaak, `${when}: ${path}?zaak=`);
      }
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: apps.authorization });
    });
    after(async () => api?.close());

    it('stays exact through inserts, deletes, cascades, moves and changes of confidentiality', async () => {
      await assertCounts('empty');
      const open = await zaak({ vertrouwelijkheidaanduiding: 'openbaar' });
      const secret = await zaak({ vertrouwelijkheidaanduiding: 'geheim' });
      const other = await zaak({ zaaktype: ZAAKTYPE_GEHEIM });
      const hoofdzaak = await zaak({ vertrouwelijkheidaanduiding: 'intern' });
      const deelzaak = await zaak({ hoofdzaak: hoofdzaak.url });
      for (const z of [open, secret, other, hoofdzaak, deelzaak]) {
        await status(z.url);
        await rol(z.url);
      }
      const second = await rol(open.url);
      await zaakobject(open.url);
      await zaakobject(deelzaak.url);
      await assertCounts('after inserts', open.url);
      assert.equal((await as('beperkt', '/statussen')).body.count, 3);

      // An explicit delete: its zaak still exists.
      assert.equal((await as('alles', second.url, { method: 'DELETE' })).status, 204);
      await assertCounts('after a record delete', open.url);

      // Raising a zaak's confidentiality above what `beperkt` may read moves its records out of its count.
      assert.equal((await as('alles', open.url, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'geheim' } })).status, 200);
      await assertCounts('after raising confidentiality', open.url);
      assert.equal((await as('beperkt', '/statussen')).body.count, 2);
      assert.equal((await as('alles', open.url, { method: 'PATCH', json: { omschrijving: 'alleen tekst' } })).status, 200);
      await assertCounts('after a change that moves nothing');
      assert.equal((await as('alles', open.url, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'openbaar' } })).status, 200);
      assert.equal((await as('beperkt', '/statussen')).body.count, 3);

      // A record moved to another zaak (SQL: any path that writes counts), and a zaaktype changed in SQL.
      const knex = api.registry.services.storage.knex;
      await knex('rol').where('zaak_id', await idOf(open.url)).update({ zaak_id: await idOf(secret.url) });
      await assertCounts('after moving a rol', secret.url);
      await knex('zaak').where('id', await idOf(other.url)).update({ zaaktype: ZAAKTYPE, vertrouwelijkheid_rank: 1, vertrouwelijkheidaanduiding: 'openbaar' });
      await assertCounts('after changing a zaaktype');

      // Destroying the hoofdzaak takes its deelzaak and all their records along (ON DELETE CASCADE).
      assert.equal((await as('alles', hoofdzaak.url, { method: 'DELETE' })).status, 204);
      await assertCounts('after a cascade', open.url);
      await knex('zaak').whereIn('id', [await idOf(open.url), await idOf(secret.url)]).delete();
      await assertCounts('after deleting two zaken in one statement');
    });

    it('counts many records in one statement, folds the counter rows, and empties them with TRUNCATE', async () => {
      const knex = api.registry.services.storage.knex;
      const zaken = await Promise.all(Array.from({ length: 6 }, (_, i) => zaak({ vertrouwelijkheidaanduiding: i % 2 ? 'openbaar' : 'vertrouwelijk' })));
      await Promise.all(zaken.flatMap((z) => [status(z.url), status(z.url), rol(z.url)]));
      await knex.raw(
        `insert into status (uuid, zaak_id, statustype, datum_status_gezet) select gen_random_uuid(), z.id, ?, now() from zaak z cross join generate_series(1, 3)`,
        [TYPES.statustypeStart],
      );
      await assertCounts('after concurrent and bulk inserts', zaken[0].url);
      assert.ok(Number((await knex('record_count').whereNot('stripe', FOLDED_STRIPE).count({ n: '*' }))[0].n) > 0, 'striped rows to fold');
      assert.ok((await foldRecordCounts(knex)) > 0);
      assert.equal(Number((await knex('record_count').whereNot('stripe', FOLDED_STRIPE).count({ n: '*' }))[0].n), 0);
      const rows = await knex('record_count').select('kind', 'zaaktype', 'vertrouwelijkheid_rank');
      assert.equal(new Set(rows.map((row) => `${row.kind} ${row.zaaktype} ${row.vertrouwelijkheid_rank}`)).size, rows.length, 'one row per key');
      await assertCounts('after folding');
      await status(zaken[1].url);
      await assertCounts('after a write on folded rows');

      await knex.raw('truncate status cascade');
      await assertCounts('after TRUNCATE of statussen');
      assert.equal((await as('alles', '/statussen')).body.count, 0);
      assert.ok((await as('alles', '/rollen')).body.count > 0, 'other kinds keep their counts');
      await knex.raw('truncate zaak cascade');
      await assertCounts('after TRUNCATE of zaken');
      assert.equal(Number((await knex('record_count').count({ n: '*' }))[0].n), 0);
    });
  });
}

describe('the record count migration', () => {
  it('counts the records a database already holds', async () => {
    const storage = await pgliteStorage({ dataDir: 'memory' });
    try {
      const index = coreMigrations.findIndex((migration) => migration.name === 'core/018_record_count');
      await storage.migrate(coreMigrations.slice(0, index));
      const knex = storage.knex;
      await knex.raw(
        `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
         select gen_random_uuid(), 'BACKFILL-' || i, '517439943', case when i % 2 = 0 then ? else ? end, current_date, '517439943', current_date, 'openbaar', 1 + i % 3
         from generate_series(1, 10) as i`,
        [ZAAKTYPE, ZAAKTYPE_GEHEIM],
      );
      await knex.raw(`insert into status (uuid, zaak_id, statustype, datum_status_gezet) select gen_random_uuid(), id, ?, now() from zaak cross join generate_series(1, id::int % 4)`, [
        TYPES.statustypeStart,
      ]);
      await knex.raw(`insert into resultaat (uuid, zaak_id, resultaattype) select gen_random_uuid(), id, 'http://catalogi.test/resultaattypen/1' from zaak where id % 2 = 0`);
      await storage.migrate(coreMigrations);
      for (const kind of ['status', 'resultaat']) {
        const perKey = await knex(kind)
          .join('zaak', 'zaak.id', `${kind}.zaak_id`)
          .groupBy('zaak.zaaktype', 'zaak.vertrouwelijkheid_rank')
          .select('zaak.zaaktype', 'zaak.vertrouwelijkheid_rank', knex.raw('count(*)::int as n'))
          .orderBy(['zaak.zaaktype', 'zaak.vertrouwelijkheid_rank']);
        const rows = await knex('record_count').where({ kind }).select('zaaktype', 'vertrouwelijkheid_rank', knex.raw('n::int as n')).orderBy(['zaaktype', 'vertrouwelijkheid_rank']);
        assert.ok(perKey.length > 1);
        assert.deepEqual(rows, perKey, kind);
      }
      assert.equal(await counted(knex, 'status'), Number((await knex('status').count({ n: '*' }))[0].n));
    } finally {
      await storage.close();
    }
  });
});
