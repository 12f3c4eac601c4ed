import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { pgliteStorage, postgresStorage, type Storage } from '../../src/index.js';
import { stopThrowawayPostgres, throwawayPostgresUrl } from './throwaway-postgres.js';

/** The configured server: PG_TEST_URL, or the local server of the development machine and CI. */
const CONFIGURED_URL = process.env.PG_TEST_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface Backend {
  name: string;
  /** A fresh, empty database; `close()` on the storage drops it. `connections`: PostgreSQL's pool size (PGlite has one). */
  open(options?: { connections?: number }): Promise<Storage>;
}

async function postgresReachable(): Promise<boolean> {
  const probe = knexFactory({ client: 'pg', connection: { connectionString: CONFIGURED_URL, connectionTimeoutMillis: 2000 }, pool: { min: 0, max: 1 } });
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
 * Where the PostgreSQL suite runs: the configured server when it answers; else, with PG_TEST_URL
 * unset and outside CI, a throwaway server of the run's own (see throwaway-postgres.ts), so a fresh
 * machine runs the whole suite. Otherwise (PG_TEST_URL unreachable, or under CI=true) the reason there is none.
 */
async function postgresUrl(): Promise<string | { error: string }> {
  if (await postgresReachable()) return CONFIGURED_URL;
  if (process.env.CI === 'true') return { error: `PostgreSQL is required under CI=true but ${CONFIGURED_URL} is unreachable` };
  if (process.env.PG_TEST_URL) return { error: `PostgreSQL at PG_TEST_URL (${CONFIGURED_URL}) is unreachable` };
  try {
    return await throwawayPostgresUrl();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const resolved = await postgresUrl();
// A root hook (registered outside any describe, while mocha loads the files): after the last test.
after(stopThrowawayPostgres);

/** The URL of the server the PostgreSQL suite runs on (the configured one when there is none). */
export const POSTGRES_URL = typeof resolved === 'string' ? resolved : CONFIGURED_URL;

/**
 * The backends every storage-touching suite runs on: PGlite and PostgreSQL. Without a PostgreSQL
 * server its tests fail with the reason, never a silent skip.
 */
export const BACKENDS: Backend[] =
  typeof resolved === 'string' ? [pglite, postgres] : [pglite, { name: 'PostgreSQL', open: () => Promise.reject(new Error(resolved.error)) }];
