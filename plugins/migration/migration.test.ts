import assert from 'node:assert/strict';
import { migration } from './index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { testApps } from '../../test/helpers/apps.js';
import { eventually } from '../../test/helpers/eventually.js';
import { startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { zaakBundles } from '../../test/helpers/zaak-bundles.js';

for (const backend of BACKENDS) {
  describe(`migration plugin: the import API under /_import/jobs (${backend.name})`, function () {
    this.timeout(120_000);
    const apps = testApps();
    let api: TestServer;
    const as = async (client: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) => api.request(path, { ...init, headers: await apps.headers(client) });

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: apps.authorization, plugins: [migration({ allowedClients: ['alles'], maxBundles: 12 })] });
    });
    after(() => api?.close());

    it('refuses a client without heeftAlleAutorisaties or zaken.importeren with 403', async () => {
      const refused = await as('beperkt', '/_import/jobs', { method: 'POST', json: {} });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      assert.equal((await as('beperkt', '/_import/jobs/00000000-0000-4000-8000-000000000000')).status, 403);
    });

    it('imports uploaded bundles as a job and reports it verified, with no notification', async () => {
      const created = await as('alles', '/_import/jobs', { method: 'POST', json: { rewrite: [{ from: 'https://oud.example.nl/zaken/api/v1', to: api.base }] } });
      assert.equal(created.status, 201, created.text);
      const job = created.body.url as string;
      const bundles = [...zaakBundles(10, 'https://oud.example.nl/zaken/api/v1', { prefix: 'api' })];
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(0, 6) } })).body.received, 6);
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(6) } })).body.received, 10);
      assert.equal((await as('alles', `${job}/start`, { method: 'POST' })).status, 202);
      const finished = await eventually(async () => {
        const state = (await as('alles', job)).body;
        assert.equal(state.status, 'finished');
        return state;
      }, 60_000);
      assert.equal(finished.counters.imported, 10);
      const report = await as('alles', `${job}/report`);
      assert.equal(report.body.clean, true, JSON.stringify(report.body.lines.filter((l: any) => l.differences.length).slice(0, 2)));
      const csv = await as('alles', `${job}/report?format=csv`);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.equal(csv.text.split('\n')[0], 'line,zaak_uuid,identificatie,resultaat,opmerking');
      assert.equal((await as('alles', `/zaken/${bundles[0].zaak && (bundles[0].zaak as any).uuid}`)).status, 200);
      const { rows } = await api.registry.services.storage.knex.raw('select count(*)::int as n from outbox');
      assert.equal(rows[0].n, 0);
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(0, 1) } })).status, 409);
    });

    it('refuses more bundles than a job may hold (413), and input that is no bundle (400)', async () => {
      const job = (await as('alles', '/_import/jobs', { method: 'POST', json: {} })).body.url as string;
      const bundles = [...zaakBundles(13, api.base, { prefix: 'te-veel' })];
      const tooMany = await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles } });
      assert.equal(tooMany.status, 413);
      const notBundles = await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: [{ geen: 'zaak' }] } });
      assert.equal(notBundles.status, 400);
      assert.ok(notBundles.body.invalidParams.length > 0);
    });
  });

  describe(`migration plugin: pausing, resuming, retrying, verifying and deleting import jobs (${backend.name})`, function () {
    this.timeout(300_000);
    const apps = testApps();
    let api: TestServer;
    const as = async (client: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) => api.request(path, { ...init, headers: await apps.headers(client) });
    const processed = (counters: Record<string, number>) => Object.entries(counters).reduce((sum, [outcome, n]) => sum + (outcome === 'deferred' ? 0 : n), 0);
    const count = async (sql: string, values: string[]) => ((await api.registry.services.storage.knex.raw(sql, values)) as { rows: { n: number }[] }).rows[0].n;
    const zakenOf = (prefix: string) => count('select count(*)::int as n from zaak where identificatie like ?', [`${prefix.toUpperCase()}-%`]);
    /** A job holding `bundles`, uploaded 50 at a time; its URL. */
    const jobWith = async (bundles: Record<string, unknown>[]) => {
      const job = (await as('alles', '/_import/jobs', { method: 'POST', json: {} })).body.url as string;
      for (let i = 0; i < bundles.length; i += 50) assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(i, i + 50) } })).status, 202);
      return job;
    };
    /**
     * A job paused partway: started, then paused. PGlite works in the test's own thread, where a job
     * may finish before the pause request is read: then again with more bundles. `whileActive` runs
     * between start and pause and says whether it found the job still active.
     */
    const pausedPartway = async (prefix: string, whileActive: (job: string) => Promise<boolean> = async () => true) => {
      for (const total of [600, 3000]) {
        const name = `${prefix}${total}`;
        const job = await jobWith([...zaakBundles(total, api.base, { prefix: name })]);
        assert.equal((await as('alles', `${job}/start`, { method: 'POST' })).status, 202);
        if (!(await whileActive(job))) continue;
        const paused = await as('alles', `${job}/pause`, { method: 'POST' });
        if (paused.status === 409 && paused.body.detail.includes('finished')) continue;
        assert.equal(paused.status, 202, paused.text);
        const done = processed(paused.body.counters);
        // A pause read after the last batch leaves the job to finish.
        if (paused.body.status === 'finished') continue;
        assert.equal(paused.body.status, 'paused');
        assert.ok(done > 0 && done < total, `stopped after ${done} of ${total} lines`);
        return { job, name, total, state: paused.body };
      }
      throw new Error('every job finished before it was paused');
    };
    const finished = (job: string) =>
      eventually(async () => {
        const state = (await as('alles', job)).body;
        assert.equal(state.status, 'finished');
        return state;
      }, 240_000);

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: apps.authorization, plugins: [migration({ allowedClients: ['alles'], maxBundles: 3000 })] });
    });
    after(() => api?.close());

    it('pauses a running job after the batches it is writing, and resumes it to import every bundle once', async () => {
      const { job, name, total, state: paused } = await pausedPartway('pauze');
      const done = processed(paused.counters);
      // Nothing half-written: the zaken stored are exactly the lines the ledger settled.
      assert.equal(await zakenOf(name), paused.counters.imported);
      assert.equal(await count('select count(*)::int as n from migration_item where job_id = ?', [paused.id]), done);
      assert.deepEqual((await as('alles', job)).body.counters, paused.counters);
      assert.equal((await as('alles', `${job}/pause`, { method: 'POST' })).status, 409);

      const resumed = await as('alles', `${job}/resume`, { method: 'POST' });
      assert.equal(resumed.status, 202, resumed.text);
      const state = await finished(job);
      assert.equal(state.counters.imported, total);
      assert.equal(await zakenOf(name), total);
      assert.equal((await as('alles', `${job}/resume`, { method: 'POST' })).status, 409);
    });

    it('retries the failed lines of a job: lines that fail again are counted once', async () => {
      const bundles = [...zaakBundles(4, api.base, { prefix: 'opnieuw' })];
      const broken = (i: number) => ({ ...bundles[i], zaak: { ...(bundles[i].zaak as object), uuid: `geen-uuid-${i}` } });
      const job = await jobWith([bundles[0], broken(1), bundles[2], broken(3)]);
      assert.equal((await as('alles', `${job}/retry`, { method: 'POST' })).status, 409);
      await as('alles', `${job}/start`, { method: 'POST' });
      const first = await finished(job);
      assert.deepEqual([first.counters.imported, first.counters.failed], [2, 2]);

      const retried = await as('alles', `${job}/retry`, { method: 'POST' });
      assert.equal(retried.status, 202, retried.text);
      const again = await finished(job);
      assert.deepEqual([again.counters.imported, again.counters.failed, again.counters.unchanged], [2, 2, 0]);
      assert.equal(await count("select count(*)::int as n from migration_item where job_id = ? and status = 'failed'", [again.id]), 2);
      assert.equal(await zakenOf('opnieuw'), 2);
      const report = (await as('alles', `${job}/report`)).body;
      assert.deepEqual(report.lines.map((l: { resultaat: string }) => l.resultaat), ['imported', 'failed', 'imported', 'failed']);
    });

    it('verifies a paused job, and deletes it with its uploads but not its zaken (409 while it runs)', async () => {
      const pending = (await as('alles', '/_import/jobs', { method: 'POST', json: {} })).body.url as string;
      assert.equal((await as('alles', `${pending}/verify`, { method: 'POST' })).status, 409);
      const { job, name, total, state: paused } = await pausedPartway('weg', async (running) => {
        const refused = await as('alles', running, { method: 'DELETE' });
        if (refused.status === 204) return false;
        assert.equal(refused.status, 409, refused.text);
        assert.equal(refused.headers.get('content-type'), 'application/problem+json');
        return true;
      });

      const verified = await as('alles', `${job}/verify`, { method: 'POST' });
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.body.lines.length, total);
      assert.equal(verified.body.summary.imported, paused.counters.imported);
      assert.equal(verified.body.summary.differing, 0);
      assert.equal(verified.body.clean, false, 'lines the job has not reached are not clean');
      const csv = await as('alles', `${job}/verify?format=csv`, { method: 'POST' });
      assert.equal(csv.text.trim().split('\n').length, total + 1);

      const deleted = await as('alles', job, { method: 'DELETE' });
      assert.equal(deleted.status, 204, deleted.text);
      assert.equal((await as('alles', job)).status, 404);
      assert.equal((await as('alles', job, { method: 'DELETE' })).status, 404);
      assert.equal(await count('select count(*)::int as n from migration_upload where job_id = ?', [paused.id]), 0);
      assert.equal(await count('select count(*)::int as n from migration_item where job_id = ?', [paused.id]), 0);
      assert.equal(await zakenOf(name), paused.counters.imported);
    });

    it('answers 403 to a client that may not import and 404 for an unknown job on every job operation', async () => {
      const unknown = '/_import/jobs/00000000-0000-4000-8000-000000000000';
      for (const [method, path] of [['POST', '/pause'], ['POST', '/resume'], ['POST', '/retry'], ['POST', '/verify'], ['DELETE', '']]) {
        const refused = await as('beperkt', `${unknown}${path}`, { method });
        assert.equal(refused.status, 403, `${method} ${path}`);
        assert.equal(refused.headers.get('content-type'), 'application/problem+json');
        const missing = await as('alles', `${unknown}${path}`, { method });
        assert.equal(missing.status, 404, `${method} ${path}`);
        assert.equal(missing.headers.get('content-type'), 'application/problem+json');
      }
    });
  });
}
