import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pgliteStorage } from '../src/index.js';
import { demoZaaktype } from '../src/demo.js';
import { DirectoryInUseError, lockDirectory } from '../src/storage/directory-lock.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

/** A zaak of the demo catalog, whose zaaktype URLs follow the server's origin (`base`). */
const zaak = (base: string) => ({
  zaaktype: demoZaaktype('meldingOpenbareRuimte', base),
  bronorganisatie: '517439943',
  verantwoordelijkeOrganisatie: '517439943',
  startdatum: '2024-01-01',
});

const serve = (dataDir: string) => spawnTs('src/cli.ts', ['serve', '--database', dataDir, '--development', '--port', '0']);

async function killed(child: ReturnType<typeof spawnTs>): Promise<void> {
  child.kill('SIGKILL');
  assert.equal(await exitCode(child), null, 'killed, not exited');
}

describe('The PGlite directory lock', function () {
  // Process start-ups of the CLI (tsx, PGlite, migrations): a few seconds each.
  this.timeout(120_000);
  let dir: string;
  let dataDir: string;
  const children: ReturnType<typeof spawnTs>[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-lock-'));
    dataDir = path.join(dir, 'data');
  });
  afterEach(async () => {
    const running = children.splice(0).filter((child) => child.exitCode === null && child.signalCode === null);
    for (const child of running) child.kill('SIGKILL');
    await Promise.all(running.map((child) => exitCode(child)));
    await rm(dir, { recursive: true, force: true });
  });

  it('of a process killed with -9 is taken over at once by the next serve, which a live process still refuses', async () => {
    const first = serve(dataDir);
    children.push(first);
    await waitForOutput(first, /serving (http:\/\/\S+)/);
    await killed(first);

    const second = serve(dataDir);
    children.push(second);
    const [, base] = await waitForOutput(second, /serving (http:\/\/\S+)/);
    assert.equal((await fetch(`${base}/zaken`)).status, 200);
    // The new owner is alive: refused, in this process as in a third one.
    await assert.rejects(pgliteStorage({ dataDir }), /in use by another zaakregister process/);
    const third = serve(dataDir);
    children.push(third);
    assert.equal(await exitCode(third), 1);
    assert.match(third.output(), /in use by another zaakregister process \(pid \d+/);
  });

  it('whose recorded owner ended and left its pid to another process is taken over; released on close', async () => {
    // This process's pid with another start time: the recorded owner ended and its pid was reused.
    await mkdir(`${dataDir}.lock`, { recursive: true });
    await writeFile(`${dataDir}.lock/owner.json`, JSON.stringify({ pid: process.pid, startTime: 'another-start', hostname: hostname() }));
    const storage = await pgliteStorage({ dataDir });
    try {
      // This process now owns it, alive: a second open is refused.
      await assert.rejects(pgliteStorage({ dataDir }), /in use by another zaakregister process/);
    } finally {
      await storage.close();
    }
    // Released on close: nothing is left, it opens again.
    await assert.rejects(stat(`${dataDir}.lock`), { code: 'ENOENT' });
    await (await pgliteStorage({ dataDir })).close();
  });

  it('of a dead owner goes to exactly one of several takers at once', async () => {
    const lockPath = `${dataDir}.lock`;
    await mkdir(lockPath, { recursive: true });
    // No process has this pid (above any pid_max): the owner is gone.
    await writeFile(`${lockPath}/owner.json`, JSON.stringify({ pid: 2_147_483_646, startTime: '1', hostname: hostname() }));
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => lockDirectory(lockPath)));
    const taken = outcomes.filter((o): o is PromiseFulfilledResult<() => Promise<void>> => o.status === 'fulfilled');
    assert.equal(taken.length, 1, JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'taken'))));
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(o.reason instanceof DirectoryInUseError, String(o.reason));
    assert.equal(JSON.parse(await readFile(`${lockPath}/owner.json`, 'utf8')).pid, process.pid);
    await taken[0].value();
    assert.deepEqual((await readdir(dir)).sort(), [], 'no lock, marker or candidate left behind');
  });

  it('keeps every acknowledged write across a kill -9 under write load and an immediate restart', async () => {
    const first = serve(dataDir);
    children.push(first);
    const [, base] = await waitForOutput(first, /serving (http:\/\/\S+)/);
    const acknowledged: string[] = [];
    let stopped = false;
    let enough!: () => void;
    const enoughAcknowledged = new Promise<void>((resolve) => (enough = resolve));
    const writer = async () => {
      while (!stopped) {
        try {
          const response = await fetch(`${base}/zaken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(zaak(base)) });
          if (response.status === 201) acknowledged.push(((await response.json()) as { url: string }).url.split('/').pop()!);
          if (acknowledged.length >= 40) enough();
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    // Killed in the middle of the load (the writers keep writing), once enough writes were acknowledged.
    await enoughAcknowledged;
    await killed(first);
    stopped = true;
    await Promise.all(writers);

    const second = serve(dataDir);
    children.push(second);
    const [, restarted] = await waitForOutput(second, /serving (http:\/\/\S+)/);
    for (const uuid of acknowledged) assert.equal((await fetch(`${restarted}/zaken/${uuid}`)).status, 200, `acknowledged zaak ${uuid} is present`);
  });
});
