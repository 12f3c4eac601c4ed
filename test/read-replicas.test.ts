import assert from 'node:assert/strict';
import { caching } from '../plugins/caching/index.js';
import { configProblems } from '../src/config.js';
import { pgliteStorage, postgresStorage, type Storage } from '../src/index.js';
import { eventually } from './helpers/eventually.js';
import { postgresBinaries, startReplicaCluster, type ReplicaCluster } from './helpers/replica-cluster.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/**
 * The registry with a real streaming replica (a primary and a `pg_basebackup -R` copy of it, started
 * here): safe reads go to the replica, writes to the primary; a lagging or dead replica is skipped;
 * a client reads its own writes on any instance; a conditional GET never gets an older answer.
 */
const binaries = postgresBinaries();
if (typeof binaries !== 'string' && process.env.CI !== 'true') {
  // Not a skipped test: this file has none to run here, and says why.
  console.error(`test/read-replicas.test.ts: no tests here: ${binaries.error}`);
} else {
  describe('read replicas', function () {
    this.timeout(120_000);
    let cluster: ReplicaCluster;
    const servers: TestServer[] = [];
    // One public base URL: every instance renders the same bytes, so the same ETag.
    const baseUrl = 'http://zaken.example/zaken/api/v1';

    before(async () => {
      if (typeof binaries !== 'string') throw new Error(`PostgreSQL server binaries are required under CI=true: ${binaries.error}`);
      cluster = await startReplicaCluster(binaries);
    });
    afterEach(async () => {
      await cluster?.onReplica('select pg_wal_replay_resume()').catch(() => undefined);
      await Promise.all(servers.splice(0).map((server) => server.close()));
    });
    after(() => cluster?.stop());

    async function instance(options: { maxReplicaLagMs?: number; replicas?: boolean; cached?: boolean } = {}): Promise<{ api: TestServer; storage: Storage }> {
      const storage = await postgresStorage({
        connection: cluster.primaryUrl,
        ...(options.replicas === false ? {} : { replicas: [cluster.replicaUrl], maxReplicaLagMs: options.maxReplicaLagMs ?? 60_000 }),
      });
      const api = await startRegistry(storage, { baseUrl, plugins: options.cached ? [caching()] : [] });
      servers.push(api);
      return { api, storage };
    }
    const routing = (storage: Storage) => storage.replicas!.state();
    const path = (url: string) => new URL(url).pathname.replace('/zaken/api/v1', '');
    /** Until the replica has replayed everything the primary has now, and the registry saw it do so. */
    async function caughtUp(storage: Storage): Promise<void> {
      const [{ lsn }] = (await cluster.onPrimary('select pg_current_wal_insert_lsn()::text as lsn')) as { lsn: string }[];
      await eventually(async () => {
        const [{ behind }] = (await cluster.onReplica(`select pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn as behind`)) as { behind: boolean }[];
        assert.equal(behind, false);
        assert.equal(routing(storage).replicas[0].usable, true);
      }, 30_000);
      // One more poll: the registry's replay position is past `lsn` too.
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    /** A change written on the primary outside the API: no client's position records it. */
    const changeBehindTheApi = (uuid: string, omschrijving: string) => cluster.onPrimary(`update zaak set omschrijving = '${omschrijving}' where uuid = '${uuid}'`);

    it('sends lists and details to the replica, writes and the reads of a write to the primary', async () => {
      const { api, storage } = await instance();
      const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'eerst' }) });
      assert.equal(created.status, 201, created.text);
      await caughtUp(storage);
      await cluster.onReplica('select pg_wal_replay_pause()');
      await changeBehindTheApi(created.body.uuid, 'later');
      const before = routing(storage);
      const detail = await api.request(path(created.body.url));
      const list = await api.request('/zaken');
      // What the replica has: the change on the primary is not replayed.
      assert.equal(detail.body.omschrijving, 'eerst');
      assert.equal(list.body.results.find((zaak: { uuid: string }) => zaak.uuid === created.body.uuid).omschrijving, 'eerst');
      assert.equal(routing(storage).replicas[0].reads, before.replicas[0].reads + 2);
      // A write reads in its transaction on the primary: it sees the change the replica lacks.
      const patched = await api.request(path(created.body.url), { method: 'PATCH', json: { toelichting: 'bijgewerkt' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.body.omschrijving, 'later');
      assert.equal(routing(storage).replicas[0].reads, before.replicas[0].reads + 2, 'the write read nothing from the replica');
    });

    it('skips a replica whose replay lags more than maxReplicaLagMs and returns to it once it caught up', async () => {
      const { api, storage } = await instance({ maxReplicaLagMs: 400 });
      const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'eerst' }) });
      await caughtUp(storage);
      await cluster.onReplica('select pg_wal_replay_pause()');
      await changeBehindTheApi(created.body.uuid, 'later');
      await eventually(() => assert.equal(routing(storage).replicas[0].skipped, 'lagging'));
      const primaryReads = routing(storage).primaryReads;
      const detail = await api.request(path(created.body.url));
      assert.equal(detail.body.omschrijving, 'later', 'read from the primary');
      assert.equal(routing(storage).primaryReads, primaryReads + 1);
      const metrics = await (await fetch(new URL('/metrics', api.base))).text();
      assert.match(metrics, /zaakregister_db_replica_usable\{replica="postgres:\/\/postgres@127\.0\.0\.1:\d+\/test"\} 0/);
      assert.match(metrics, /zaakregister_db_replica_lag_seconds\{replica="[^"]+"\} (0\.[4-9]|[1-9])/);
      assert.match(metrics, /zaakregister_db_reads_total\{target="primary"\} [1-9]/);
      await cluster.onReplica('select pg_wal_replay_resume()');
      await eventually(() => assert.equal(routing(storage).replicas[0].usable, true));
      const reads = routing(storage).replicas[0].reads;
      const again = await api.request(path(created.body.url));
      assert.equal(again.body.omschrijving, 'later');
      assert.equal(routing(storage).replicas[0].reads, reads + 1, 'read from the replica again');
    });

    it('answers every read while the replica is killed and restarted, then reads from it again', async () => {
      const { api, storage } = await instance({ maxReplicaLagMs: 1000 });
      const created = await api.request('/zaken', { method: 'POST', json: zaakInput() });
      await caughtUp(storage);
      cluster.killReplica();
      // Before the poll notices: the read fails on the replica and is answered from the primary.
      for (let i = 0; i < 5; i++) {
        const detail = await api.request(path(created.body.url));
        assert.equal(detail.status, 200, detail.text);
        const list = await api.request('/zaken');
        assert.equal(list.status, 200, list.text);
      }
      await eventually(() => assert.equal(routing(storage).replicas[0].skipped, 'down'));
      assert.equal((await fetch(new URL('/readyz', api.base))).status, 200, 'ready while the primary is up');
      cluster.startReplica();
      await eventually(() => assert.equal(routing(storage).replicas[0].usable, true), 30_000);
      const reads = routing(storage).replicas[0].reads;
      assert.equal((await api.request('/zaken')).status, 200);
      assert.equal(routing(storage).replicas[0].reads, reads + 1);
    });

    it('a client reads its own write on another instance while the replica replays nothing', async () => {
      const a = await instance();
      const b = await instance();
      await caughtUp(b.storage);
      await cluster.onReplica('select pg_wal_replay_pause()');
      const created = await a.api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'op A geschreven' }) });
      assert.equal(created.status, 201, created.text);
      const detail = await b.api.request(path(created.body.url));
      assert.equal(detail.status, 200, detail.text);
      assert.equal(detail.body.omschrijving, 'op A geschreven');
      const list = await b.api.request('/zaken?pageSize=100');
      assert.ok(list.body.results.some((zaak: { uuid: string }) => zaak.uuid === created.body.uuid));
    });

    it('a conditional GET with an ETag newer than the replica gets the current representation, never an older 200', async () => {
      const onReplica = await instance({ cached: true });
      const onPrimary = await instance({ cached: true, replicas: false });
      const created = await onReplica.api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'eerst' }) });
      await caughtUp(onReplica.storage);
      await cluster.onReplica('select pg_wal_replay_pause()');
      await changeBehindTheApi(created.body.uuid, 'later');
      // The client saw the newer representation elsewhere.
      const newer = await onPrimary.api.request(path(created.body.url));
      assert.equal(newer.body.omschrijving, 'later');
      const etag = newer.headers.get('etag')!;
      const conditional = await onReplica.api.request(path(created.body.url), { headers: { 'if-none-match': etag } });
      assert.equal(conditional.status, 304, conditional.text);
      assert.equal(conditional.headers.get('etag'), etag);
      // Without the tag the replica's (older) state is what a read within maxReplicaLagMs may give.
      const plain = await onReplica.api.request(path(created.body.url));
      assert.equal(plain.body.omschrijving, 'eerst');
      // The older tag, confirmed by the replica where it is current: a 304 from one statement there.
      const older = await onReplica.api.request(path(created.body.url), { headers: { 'if-none-match': plain.headers.get('etag')! } });
      assert.equal(older.status, 304);
    });
  });
}

describe('read replica settings', () => {
  it('the config file takes "database.replicas" and "maxReplicaLagMs"; bad values are named', () => {
    const database = { primary: 'postgres://db/zaken', replicas: ['postgres://replica/zaken'], maxReplicaLagMs: 500 };
    assert.deepEqual(configProblems({ database }, { serving: false }), []);
    const problems = configProblems({ database: { primary: 'postgres://db/zaken', replicas: ['mysql://replica/zaken', ''], maxReplicaLagMs: 0 } }, { serving: false });
    const paths = problems.map((problem) => problem.path);
    assert.ok(paths.includes('/database/replicas/0'), JSON.stringify(problems));
    assert.ok(paths.includes('/database/replicas/1'), JSON.stringify(problems));
    assert.ok(paths.includes('/database/maxReplicaLagMs'), JSON.stringify(problems));
  });

  it('postgresStorage names a replica URL of another scheme; PGlite refuses replicas', async () => {
    await assert.rejects(postgresStorage({ connection: 'postgres://127.0.0.1/test', replicas: ['postgress://replica/test'] }), /replicas\[0\] has the unknown scheme postgress:\/\//);
    await assert.rejects(pgliteStorage({ dataDir: 'memory', replicas: ['postgres://replica/test'] } as never), /replicas: needs a PostgreSQL primary/);
  });
});
