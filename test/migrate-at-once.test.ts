import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { postgresStorage } from '../src/index.js';
import { coreMigrations } from '../src/storage/migrations/index.js';
import { POSTGRES_URL } from './helpers/backends.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

const PROCESSES = 4;
const ROUNDS = 3;

/** A fresh, empty database on the test server; `drop()` removes it. */
async function emptyDatabase(admin: Knex): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `zaakregister_test_${randomBytes(6).toString('hex')}`;
  await admin.raw('create database ??', [name]);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => void (await admin.raw('drop database if exists ?? with (force)', [name])) };
}

/** Applied migration names, with how often each was recorded. */
async function recorded(url: string): Promise<Map<string, number>> {
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const rows = (await knex('zaakregister_migrations').select('name')) as { name: string }[];
    const counts = new Map<string, number>();
    for (const { name } of rows) counts.set(name, (counts.get(name) ?? 0) + 1);
    return counts;
  } finally {
    await knex.destroy();
  }
}

/**
 * Starts `PROCESSES` registries on `url`, waits until each has assembled, then signals them all at
 * once to migrate. Resolves with each one's applied migrations; fails when any of them failed.
 */
async function migrateAtOnce(url: string): Promise<string[][]> {
  const children = Array.from({ length: PROCESSES }, () => spawnTs('test/fixtures/migrate-child.ts', [url]));
  try {
    await Promise.all(children.map((child) => waitForOutput(child, /^ready$/m)));
    for (const child of children) child.kill('SIGUSR2');
    const codes = await Promise.all(children.map(exitCode));
    codes.forEach((code, i) => assert.equal(code, 0, children[i].output()));
    return children.map((child) => JSON.parse(child.output().match(/^applied (.*)$/m)![1]) as string[]);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('registries that migrate one PostgreSQL database at the same moment', function () {
  this.timeout(240_000);
  let admin: Knex;
  before(() => {
    admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
  });
  after(() => admin.destroy());

  it(`on an empty database, ${PROCESSES} processes at once all succeed and apply each migration once (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const database = await emptyDatabase(admin);
      try {
        const applied = await migrateAtOnce(database.url);
        const all = applied.flat();
        assert.equal(new Set(all).size, all.length, `round ${round + 1}: a migration applied twice: ${JSON.stringify(applied)}`);
        const counts = await recorded(database.url);
        assert.deepEqual([...counts.keys()].sort(), [...all].sort(), `round ${round + 1}`);
        assert.ok([...counts.values()].every((count) => count === 1));
        assert.ok(counts.has(coreMigrations.at(-1)!.name));
      } finally {
        await database.drop();
      }
    }
  });

  it(`on an older schema, ${PROCESSES} processes at once apply only the missing migrations, each once`, async () => {
    for (let round = 0; round < 2; round++) {
      const database = await emptyDatabase(admin);
      try {
        const older = coreMigrations.slice(0, 6);
        const storage = await postgresStorage({ connection: database.url });
        await storage.migrate(older);
        await storage.close();
        const applied = (await migrateAtOnce(database.url)).flat();
        assert.equal(new Set(applied).size, applied.length);
        assert.ok(!applied.some((name) => older.some((m) => m.name === name)), 'an applied migration ran again');
        const counts = await recorded(database.url);
        assert.equal(counts.size, older.length + applied.length);
        assert.ok([...counts.values()].every((count) => count === 1));
      } finally {
        await database.drop();
      }
    }
  });

  it('serve --development twice and migrate, started together on an empty database, all come up', async () => {
    const database = await emptyDatabase(admin);
    const started = [
      spawnTs('src/cli.ts', ['serve', '--development', '--database', database.url, '--port', '0']),
      spawnTs('src/cli.ts', ['serve', '--development', '--database', database.url, '--port', '0']),
      spawnTs('src/cli.ts', ['migrate', '--database', database.url]),
    ];
    try {
      await Promise.all(started.slice(0, 2).map((server) => waitForOutput(server, /serving http/)));
      assert.equal(await exitCode(started[2]), 0, started[2].output());
      for (const server of started.slice(0, 2)) {
        const [, port] = server.output().match(/listening on http:\/\/127\.0\.0\.1:(\d+)/)!;
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
        assert.equal(ready.status, 200, await ready.text());
      }
      const counts = await recorded(database.url);
      assert.ok([...counts.values()].every((count) => count === 1));
    } finally {
      for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.all(started.map(exitCode));
      await database.drop();
    }
  });
});
