import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { postgresStorage } from '../src/index.js';
import { POSTGRES_URL } from './helpers/backends.js';
import { pgbouncerAvailability, startPgBouncer, type PgBouncer } from './helpers/pgbouncer.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { spawnTs } from './helpers/spawn.js';

/**
 * The registry behind a real PgBouncer in transaction pooling mode, with two server connections for
 * the registry's eight: each transaction may run on another server connection than the last one of
 * the same client connection. Prepared statements are off (`preparedStatements: false`), as
 * PgBouncer before 1.21 (Debian 12 ships 1.18) cannot carry them across.
 */
const availability = pgbouncerAvailability();
if ('error' in availability && !availability.fail) {
  // Not a skipped test: this file has none to run here, and says why.
  console.error(`test/pgbouncer.test.ts: no tests here: ${availability.error}`);
} else {
  describe('behind PgBouncer in transaction pooling mode', function () {
    this.timeout(120_000);
    let bouncer: PgBouncer;
    let admin: Knex;
    let api: TestServer;
    const database = `zaakregister_pgbouncer_${randomBytes(6).toString('hex')}`;

    before(async () => {
      if ('error' in availability) throw new Error(`PgBouncer is required under CI=true: ${availability.error}`);
      admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
      await admin.raw('create database ??', [database]);
      bouncer = await startPgBouncer(availability.binary, { upstream: new URL(POSTGRES_URL), mode: 'transaction', poolSize: 2 });
      // Migrated through the pooler too: the registry starts as an operator deploys it.
      const storage = await postgresStorage({ connection: bouncer.url(database), pool: { min: 8, max: 8 }, preparedStatements: false });
      api = await startRegistry(storage, { preset: 'standard' });
    });
    after(async () => {
      await api?.close();
      await bouncer?.stop();
      await admin?.raw('drop database if exists ?? with (force)', [database]);
      await admin?.destroy();
    });

    it('serves concurrent writes, reads, lists and a failing write without losing or mixing transactions', async () => {
      const created = await Promise.all(Array.from({ length: 24 }, (_, i) => api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: `via pgbouncer ${i}` }) })));
      for (const response of created) assert.equal(response.status, 201, response.text);
      const urls = created.map((response) => response.body.url as string);
      const work = await Promise.all([
        ...urls.map((url, i) => api.request('/statussen', { method: 'POST', json: { zaak: url, statustype: TYPES.statustypeStart, datumStatusGezet: `2024-03-01T10:00:${String(i).padStart(2, '0')}Z` } })),
        ...urls.map((url) => api.request(new URL(url).pathname.replace('/zaken/api/v1', ''), { method: 'PATCH', json: { toelichting: 'bijgewerkt' } })),
        ...Array.from({ length: 12 }, (_, i) => api.request(`/zaken?page=1&pageSize=${1 + i}`)),
        ...urls.map((url) => api.request(new URL(url).pathname.replace('/zaken/api/v1', ''))),
        // Refused inside its transaction (no such zaak): rolled back, nothing left behind.
        ...Array.from({ length: 6 }, () => api.request('/statussen', { method: 'POST', json: { zaak: `${api.base}/zaken/${crypto.randomUUID()}`, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } })),
      ]);
      const statuses = work.map((response) => response.status);
      assert.ok(statuses.every((status) => status < 500), `statuses: ${statuses.join(',')}\n${work.find((response) => response.status >= 500)?.text}`);
      assert.equal(statuses.filter((status) => status === 400).length, 6);
      const list = await api.request('/zaken?pageSize=100');
      assert.equal(list.body.count, 24);
      assert.ok(list.body.results.every((zaak: { toelichting: string; status: string | null }) => zaak.toelichting === 'bijgewerkt' && zaak.status), 'every zaak updated and with its status');
      const statussen = await api.request('/statussen');
      assert.equal(statussen.body.count, 24);
    });

    it('the CLI takes the option from "database" as an object: migrate runs through the pooler', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-pgbouncer-config-'));
      try {
        const file = path.join(dir, 'config.json');
        writeFileSync(file, JSON.stringify({ database: { primary: bouncer.url(database), preparedStatements: false } }));
        const child = spawnTs('src/cli.ts', ['migrate', '--config', file], { DATABASE_URL: '' });
        const code = await new Promise((resolve) => child.once('exit', resolve));
        assert.equal(code, 0, child.output());
        assert.match(child.output(), /database is up to date/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('runs every statement unnamed: no prepared statement is left on the server connections', async () => {
      for (let i = 0; i < 8; i++) assert.equal((await api.request('/zaken?page=1')).status, 200);
      // Each server connection of the pool, seen from the server: none holds a prepared statement.
      const direct = knexFactory({ client: 'pg', connection: { connectionString: POSTGRES_URL.replace(/\/[^/]*$/, `/${database}`) }, pool: { min: 0, max: 1 } });
      try {
        const { rows } = await direct.raw(`select count(*)::int as n from pg_stat_activity where datname = ? and backend_type = 'client backend' and pid <> pg_backend_pid()`, [database]);
        assert.ok(rows[0].n >= 1 && rows[0].n <= 2, `server connections of the pooler: ${rows[0].n}`);
      } finally {
        await direct.destroy();
      }
      const pooled = api.registry.services.storage.knex;
      for (let i = 0; i < 4; i++) {
        const { rows } = await pooled.raw('select count(*)::int as n from pg_prepared_statements');
        assert.equal(rows[0].n, 0);
      }
    });
  });
}
