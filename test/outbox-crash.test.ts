import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pgliteStorage, type Storage } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { eventually as waitFor } from './helpers/eventually.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';
import { answer, listenWithModes, type RecordedRequest } from './helpers/zgw-servers.js';

const CHILD = 'test/fixtures/outbox-child.ts';
/**
 * The lease the killed child holds on its delivery: what the next process waits out. Long enough that
 * the next process's own delivery ends within its lease on a busy machine (else it is claimed again).
 */
const LEASE_MS = '4000';

const eventually = <T>(check: () => T | Promise<T>) => waitFor(check, 30_000);

/**
 * Where the child processes find the database: PostgreSQL, a fresh database of the backend helper
 * (its URL); PGlite, a data directory (the in-memory database of the helper cannot be shared between
 * processes), whose lock the resuming child takes over from the killed one.
 */
async function database(backendName: string): Promise<{ location: string; rowCount(): Promise<number>; close(): Promise<void> }> {
  const count = async (storage: Storage) => Number((await storage.knex('outbox').count({ n: '*' }))[0].n);
  if (backendName === 'PostgreSQL') {
    const backend = BACKENDS.find((b) => b.name === backendName)!;
    const storage = await backend.open();
    return { location: storage.description, rowCount: () => count(storage), close: () => storage.close() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-outbox-'));
  const dataDir = path.join(dir, 'data');
  return {
    location: dataDir,
    // Only when no child holds the directory.
    async rowCount() {
      const storage = await pgliteStorage({ dataDir });
      try {
        return await count(storage);
      } finally {
        await storage.close();
      }
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

for (const backend of BACKENDS) {
  describe(`Outbox across a crash on ${backend.name}`, function () {
    // PGlite: two process start-ups with a fresh data directory.
    if (backend.name === 'PGlite') this.timeout(120_000);
    it('a delivery in flight when its process is killed is delivered by the next process once the claim expires', async () => {
      const requests: RecordedRequest[] = [];
      const server = await listenWithModes(requests, (_req, res) => answer(res, 204));
      const db = await database(backend.name);
      const children: ReturnType<typeof spawnTs>[] = [];
      try {
        await server.setMode('hang');
        const url = `${server.origin}/deliveries`;

        const enqueuer = spawnTs(CHILD, [db.location, 'enqueue', url, LEASE_MS]);
        children.push(enqueuer);
        const [, committed] = await waitForOutput(enqueuer, /committed (\d+)/, 90_000);
        const id = Number(committed);
        // The delivery reached the target (after commit) and hangs there: kill the process now.
        await eventually(() => assert.equal(requests.length, 1, enqueuer.output()));
        assert.deepEqual(requests[0].body, { id, attempt: 1, payload: { pid: enqueuer.pid, note: 'enqueued before the crash' } });
        enqueuer.kill('SIGKILL');
        assert.equal(await exitCode(enqueuer), null, 'killed, not exited');

        await server.setMode('ok');
        if (backend.name === 'PostgreSQL') assert.equal(await db.rowCount(), 1, 'the claimed delivery survived its process');

        const resumer = spawnTs(CHILD, [db.location, 'resume', url, LEASE_MS]);
        children.push(resumer);
        const [, delivered] = await waitForOutput(resumer, /outbox empty, delivered (\d+)/, 90_000);
        assert.equal(await exitCode(resumer), 0, resumer.output());
        assert.equal(delivered, '1', resumer.output());

        assert.equal(requests.length, 2, 'the hung attempt and the delivery');
        // The claim's bookkeeping commits without waiting for the WAL flush: whether the killed attempt
        // was counted depends on whether it reached disk. What matters is that the delivery was made.
        const { attempt, ...delivery } = requests[1].body as { attempt: number };
        assert.ok(attempt === 1 || attempt === 2, `attempt ${attempt}`);
        assert.deepEqual(delivery, { id, payload: { pid: enqueuer.pid, note: 'enqueued before the crash' } });
        assert.equal(await db.rowCount(), 0);
      } finally {
        // exitCode() waits for an 'exit' still to come: only for children still running.
        const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
        for (const child of running) child.kill('SIGKILL');
        await Promise.all(running.map((child) => exitCode(child)));
        await server.close();
        await db.close();
      }
    });
  });
}
