import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import knexFactory from 'knex';
import { consoleLogger, createRegistry, openStorage, staticCatalog } from '../../src/index.js';
import { coreMigrations } from '../../src/storage/migrations/index.js';
import { SERVER, backend, log } from './options.js';
import { seed, type SeedReport } from './seed.js';
import { benchCatalog } from './world.js';

function databaseUrl(size: number): string {
  const url = new URL(SERVER);
  url.pathname = `/zaakregister_bench_${size}`;
  return url.toString();
}

/** What a seeded database was made with: the size and the core's migrations as they are now. */
const SEED_MARK = (size: number) =>
  `${size}:${createHash('sha1').update(coreMigrations.map((m) => m.name + m.up.toString()).join('\n') + seed.toString()).digest('hex').slice(0, 16)}`;

/** The storage for a size, seeded once and reused while it was seeded with this size and schema. */
export async function prepare(size: number): Promise<{ database: string; seeded?: SeedReport }> {
  const database = backend === 'pglite' ? `bench/.data/pglite-${size}` : databaseUrl(size);
  if (backend === 'postgres') {
    const admin = knexFactory({ client: 'pg', connection: SERVER, pool: { min: 0, max: 1 } });
    const name = `zaakregister_bench_${size}`;
    const exists = (await admin.raw('select 1 from pg_database where datname = ?', [name])).rows.length > 0;
    if (exists && (await seedMark(database)) === SEED_MARK(size)) {
      await admin.destroy();
      return { database };
    }
    await admin.raw('drop database if exists ?? with (force)', [name]);
    await admin.raw('create database ??', [name]);
    await admin.destroy();
  } else if ((await seedMark(database)) !== SEED_MARK(size)) {
    // A directory from an interrupted seed, or from another schema: start over.
    rmSync(database, { recursive: true, force: true });
  }
  // The registry's own migrations (core and the standard preset's plugins), then the data.
  const registry = await createRegistry({ storage: database, catalog: staticCatalog(benchCatalog()), logger: consoleLogger('warn') });
  const knex = registry.services.storage.knex;
  const existing = await knex.schema.hasTable('bench_seed').then((has) => (has ? knex('bench_seed').first('mark') : undefined));
  let seeded: SeedReport | undefined;
  if (existing?.mark !== SEED_MARK(size)) {
    log(`seeding ${size.toLocaleString('en')} zaken (${backend})`);
    seeded = await seed(knex, size, log);
    await knex.schema.createTable('bench_seed', (t) => t.string('mark'));
    await knex('bench_seed').insert({ mark: SEED_MARK(size) });
    log(`  ${seeded.rows.toLocaleString('en')} rows in ${seeded.seconds.toFixed(1)} s: ${seeded.rowsPerSecond.toLocaleString('en')} rows/s`);
  }
  await registry.close();
  return { database, seeded };
}

/** About 1,000 zaken spread over the table (read before the registry opens a PGlite directory). */
export async function sampleZaken(database: string, size: number): Promise<{ uuid: string; zaaktype: string }[]> {
  const storage = await openStorage(database);
  try {
    const step = Math.max(1, Math.floor(size / 1000));
    // Seeded zaken only: a reset comes later, after the warm-up.
    return await storage.knex('zaak').whereRaw('id % ? = 0', [step]).where('identificatie', 'like', 'BENCH-%').orderBy('id').limit(1000).select('uuid', 'zaaktype');
  } finally {
    await storage.close();
  }
}

/** Back to the seeded state: what earlier runs created (zaken, statussen, audit rows) goes. */
export async function reset(database: string): Promise<void> {
  const storage = await openStorage(database);
  try {
    const knex = storage.knex;
    await knex('zaak').whereNot('identificatie', 'like', 'BENCH-%').delete();
    await knex('status').where('datum_status_gezet', '>=', '2026-01-01').delete();
    await knex('audittrail').delete();
    await knex('outbox').delete();
    // index_cleanup: below 2% of pages with dead rows PostgreSQL skips the indexes and leaves those
    // pages not all-visible, so the index-only scans of the reads would visit the rows again.
    await knex.raw('vacuum (index_cleanup on, analyze)');
  } finally {
    await storage.close();
  }
}

async function seedMark(database: string): Promise<string | undefined> {
  if (backend === 'pglite' && !existsSync(database)) return undefined;
  const storage = await openStorage(database);
  try {
    return (await storage.knex.schema.hasTable('bench_seed')) ? String((await storage.knex('bench_seed').first('mark'))?.mark) : undefined;
  } catch {
    return undefined;
  } finally {
    await storage.close();
  }
}
