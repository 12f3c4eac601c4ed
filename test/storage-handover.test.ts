import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRegistry, pgliteStorage, type Logger, type Storage } from '../src/index.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

describe('a storage handed to createRegistry as a promise, when assembling fails', function () {
  // Opening an embedded database: a few seconds on a busy machine.
  this.timeout(120_000);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  let dir: string;
  beforeEach(async () => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-handover-'));
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await rm(dir, { recursive: true, force: true });
  });

  it('that rejects (the database is down) leaves no unhandled rejection: the caller gets the options error', async () => {
    let databaseDown!: (error: Error) => void;
    const storage = new Promise<Storage>((_, reject) => (databaseDown = reject));
    const assembling = createRegistry({ logger: quiet, storage, preset: 'standart' as never });
    databaseDown(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    await assert.rejects(assembling, /preset/);
    // Unhandled rejections are reported once the microtasks have run.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(unhandled, []);
  });

  it('that opens is closed: its PGlite directory can be opened again', async () => {
    const dataDir = path.join(dir, 'data');
    const opening = pgliteStorage({ dataDir });
    await assert.rejects(createRegistry({ logger: quiet, storage: opening, preset: 'standart' as never }), /preset/);
    await opening;
    // Closed, its directory lock released: another open succeeds instead of "in use".
    await (await pgliteStorage({ dataDir })).close();
    assert.deepEqual(unhandled, []);
  });

  it('that opens is closed also when a plugin is refused while the registry is assembled', async () => {
    const dataDir = path.join(dir, 'data');
    const opening = pgliteStorage({ dataDir });
    const twice = { name: 'twice' };
    await assert.rejects(createRegistry({ logger: quiet, storage: opening, preset: 'none', plugins: [twice, twice] }), /twice/);
    await opening;
    await (await pgliteStorage({ dataDir })).close();
  });
});
