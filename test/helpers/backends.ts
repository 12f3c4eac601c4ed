import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { pgliteStorage, postgresStorage, type Storage } from '../../src/index.js';

/** Where the PostgreSQL suite runs: PG_TEST_URL, or the local server of the development machine and CI. */
export const POSTGRES_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface Backend {
  name: string;
  /** A fresh, empty database; `close()` on the storage drops it. `connections`: PostgreSQL's pool size (PGlite has one). */
  open(options?: { connections?: number }): Promise<Storage>;
}

async function postgresReachable(): Promise<boolean> {
  const probe = knexFactory({ client: 'pg', connection: { connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 }, pool: { min: 0, max: 1 } });
  try {
    await probe.raw('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await probe.destroy();
  }
}

const pglite: Backend = { name: 'PGlite', open: () => pgliteStorage({ dataDir: 'memory' }) };

const postgres: Backend = {
  name: 'PostgreSQL',
  async open({ connections } = {}) {
    const admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
    const database = `zaakregister_test_${randomBytes(6).toString('hex')}`;
    await admin.raw('create database ??', [database]);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    const storage = await postgresStorage({ connection: url.toString(), pool: connections ? { min: 1, max: connections } : undefined });
    const close = storage.close.bind(storage);
    return Object.assign(storage, {
      async close() {
        await close();
        await admin.raw('drop database if exists ?? with (force)', [database]);
        await admin.destroy();
      },
    });
  },
};

/**
 * The backends every storage-touching suite runs on: PGlite always; PostgreSQL when reachable.
 * Under CI=true an unreachable PostgreSQL is a failure, never a silent skip.
 */
export async function backends(): Promise<Backend[]> {
  if (await postgresReachable()) return [pglite, postgres];
  if (process.env.CI === 'true') {
    return [pglite, { name: 'PostgreSQL', open: () => Promise.reject(new Error(`PostgreSQL is required under CI=true but ${POSTGRES_URL} is unreachable`)) }];
  }
  console.warn(`[test] PostgreSQL at ${POSTGRES_URL} is unreachable: running the PGlite backend only`);
  return [pglite];
}

export const BACKENDS = await backends();
