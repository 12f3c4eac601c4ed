import assert from 'node:assert/strict';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { roundTripsDuring, statementsDuring } from './helpers/statements.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/**
 * The write path's round trips: each query waits for the database, so `POST /zaken` and `POST /statussen`
 * send a fixed, small number of statements (with the standard preset: zrc-rules, archive, the audit row)
 * in fewer round trips still (BEGIN and the audit row travel with other statements), and a zaak locked
 * by the core is not locked again by a plugin.
 */
for (const backend of BACKENDS) {
  describe(`statements per write on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const post = async (path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json, headers: await apps.headers('alles') });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    /** The statements of the request's own transaction (not the outbox dispatcher's polls, claims and analyzes in between). */
    const ownStatement = (sql: string) => !/(from|update|analyze) "?outbox"?\b|outbox_dispatch/i.test(sql);
    const statementsOf = (work: () => Promise<unknown>) => statementsDuring(api.registry.services.storage.knex, work, ownStatement, { ownTransactions: true });
    const roundTripsOf = (work: () => Promise<unknown>) => roundTripsDuring(work, ownStatement);
    /**
     * The round trips of `work`, run `times` times: the fewest, once every statement is prepared on the
     * connection it runs on (the first use of a prepared statement on a connection sends BEGIN on its
     * own: one more), and never more than one above them.
     */
    const fewestRoundTrips = async (work: () => Promise<unknown>, times = 5) => {
      const runs: string[][] = [];
      for (let i = 0; i < times; i++) runs.push(await roundTripsOf(work));
      const fewest = runs.reduce((best, run) => (run.length < best.length ? run : best));
      for (const run of runs) assert.ok(run.length <= fewest.length + 1, run.join('\n---\n'));
      return fewest;
    };
    const lockingStatements = (sql: string[], table: string) => sql.filter((s) => new RegExp(`from "${table}".*for update`, 'is').test(s));

    before(async () => {
      api = await startRegistry(await backend.open(), { preset: 'standard', authorization: apps.authorization });
    });
    after(async () => api?.close());

    it('creates a zaak with its audit row in at most 4 statements (BEGIN and COMMIT included) besides reserving identificaties', async () => {
      await post('/zaken', zaakInput()); // warms the catalog cache: the count is that of a cached catalog
      const sql = (await statementsOf(() => post('/zaken', zaakInput()))).filter((s) => !/zaak_reserve_identificaties/.test(s));
      assert.ok(sql.length <= 4, `${sql.length} statements:\n${sql.join('\n')}`);
      assert.ok(sql.some((s) => /insert into "zaak"/i.test(s)));
      assert.ok(sql.some((s) => /insert into "audittrail"/i.test(s)));
    });

    it('creates a zaak in 1 round trip: BEGIN, the zaak, its audit row and COMMIT, its identificatie reserved ahead', async () => {
      const sent = await fewestRoundTrips(() => post('/zaken', zaakInput()));
      assert.equal(sent.length, 1, sent.join('\n---\n'));
      assert.match(sent[0], /^BEGIN\s*;\s*insert into "zaak" .*'ZAAK-\d{4}-\d{10}'.*;\s*insert into "audittrail" .*zaak_created_id\('[0-9a-f-]{36}'\).*;\s*COMMIT;?$/is);
    });

    it('reserves the identificaties of a run of creates in blocks that grow with it', async () => {
      const sql = await statementsOf(async () => {
        for (let i = 0; i < 30; i++) await post('/zaken', zaakInput());
      });
      const reservations = sql.filter((s) => /zaak_reserve_identificaties/.test(s));
      assert.ok(reservations.length >= 1 && reservations.length <= 8, `${reservations.length} reservations for 30 creates`);
    });

    it('creates a zaak with an identificatie of its own in 2 round trips: BEGIN with the prepared zaak insert, the audit row with the COMMIT', async () => {
      let n = 0;
      const sent = await fewestRoundTrips(() => post('/zaken', zaakInput({ identificatie: `EIGEN-${Date.now()}-${n++}` })));
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      assert.match(sent[0], /^BEGIN\s*;\s*EXECUTE "zaakregister_[0-9a-f]+"\(/);
      assert.match(sent[1], /^insert into "audittrail".*;\s*COMMIT;?$/is);
    });

    it('creates a status locking its zaak once, in at most 6 statements', async () => {
      const zaak = await post('/zaken', zaakInput());
      await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-02T10:00:00Z' });
      const sql = await statementsOf(() => post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-03T10:00:00Z' }));
      assert.equal(lockingStatements(sql, 'zaak').length, 1, sql.join('\n'));
      assert.ok(sql.length <= 6, `${sql.length} statements:\n${sql.join('\n')}`);
      let minute = 10;
      const sent = await fewestRoundTrips(() => post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: `2030-01-04T10:${minute++}:00Z` }));
      assert.equal(sent.length, 4, `the read, BEGIN with the lock, the status, the audit row with the COMMIT:\n${sent.join('\n---\n')}`);
      assert.match(sent[1], /^BEGIN\s*;\s*EXECUTE "zaak_by_uuid_locked"\(/);
      assert.match(sent[2], /^insert into "status"/);
    });

    it('answers a created status as a read of it shows it, without reading it back', async () => {
      const zaak = await post('/zaken', zaakInput());
      const rol = await post('/rollen', {
        zaak: zaak.url,
        betrokkeneType: 'natuurlijk_persoon',
        roltype: TYPES.roltypeBehandelaar,
        roltoelichting: 'behandelaar',
        betrokkeneIdentificatie: { inpBsn: '111222333' },
      });
      const later = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-05T10:00:00Z', gezetdoor: rol.url });
      const earlier = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-04T10:00:00Z' });
      const again = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-05T10:00:00Z' });
      assert.equal(later.indicatieLaatstGezetteStatus, true);
      assert.equal(later.gezetdoor, rol.url);
      assert.equal(earlier.indicatieLaatstGezetteStatus, false, 'a status set before the latest one is not the latest');
      assert.equal(earlier.gezetdoor, '');
      assert.equal(again.indicatieLaatstGezetteStatus, true, 'of two set at the same moment, the one set last is the latest');
      const read = await api.request(earlier.url, { headers: await apps.headers('alles') });
      assert.deepEqual(earlier, read.body);
    });
  });
}
