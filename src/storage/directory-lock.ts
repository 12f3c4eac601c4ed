import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';

/** Who holds a lock: a process, told apart from a later one under the same pid by its start time. */
interface Owner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); absent where there is no /proc. */
  startTime?: string;
  hostname: string;
}

const OWNER_FILE = 'owner.json';
/** A takeover takes milliseconds: a takeover marker older than this was left by a process that died in it. */
const STALE_TAKEOVER_MS = 10_000;
const ATTEMPTS = 50;

/** The start time of a live process, undefined when it is gone (or a zombie) or there is no /proc to ask. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2, the command, is in parentheses and may hold anything: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

function me(): Owner {
  return { pid: process.pid, startTime: startTimeOf(process.pid), hostname: hostname() };
}

/**
 * Whether the recorded owner still runs. A lock of another host cannot be checked from here and
 * counts as held; without /proc only the pid is compared.
 */
function alive(owner: Owner): boolean {
  if (owner.hostname !== hostname()) return true;
  if (hasProc) {
    const startTime = startTimeOf(owner.pid);
    return startTime !== undefined && startTime === owner.startTime;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(lockPath: string): Promise<Owner | undefined> {
  try {
    return JSON.parse(await readFile(`${lockPath}/${OWNER_FILE}`, 'utf8')) as Owner;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Half-written by hand or by a foreign tool: not a lock this code made, and not ours to judge.
    throw new Error(`cannot read the owner of lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
}

const sameOwner = (a: Owner, b: Owner) => a.pid === b.pid && a.startTime === b.startTime && a.hostname === b.hostname;
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

export class DirectoryInUseError extends Error {
  constructor(readonly lockPath: string, readonly owner: Owner) {
    super(`lock ${lockPath} is held by pid ${owner.pid} on ${owner.hostname}`);
    this.name = 'DirectoryInUseError';
  }
}

/**
 * Takes the lock directory `lockPath` for this process, or throws `DirectoryInUseError` while a live
 * process holds it. The lock is a directory with its owner inside (pid, start time, host), made
 * whole elsewhere and renamed into place, so a lock never exists without its owner. A lock whose owner
 * no longer runs (killed, crashed) is taken over at once, one taker at a time (`<lock>.takeover`).
 * Returns the release.
 */
export async function lockDirectory(lockPath: string): Promise<() => Promise<void>> {
  const owner = me();
  const candidate = `${lockPath}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(candidate);
  try {
    await writeFile(`${candidate}/${OWNER_FILE}`, JSON.stringify(owner));
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (await claim(candidate, lockPath)) return release(lockPath, owner);
      const holder = await readOwner(lockPath);
      if (!holder) continue; // released meanwhile
      if (alive(holder)) throw new DirectoryInUseError(lockPath, holder);
      await takeOver(lockPath, holder);
    }
    throw new Error(`could not take lock ${lockPath}: it kept changing hands`);
  } finally {
    await rm(candidate, { recursive: true, force: true });
  }
}

/** Moves a lock directory out of the way at once (no moment in which it is there but empty), then deletes it. */
async function discard(lockPath: string): Promise<void> {
  const trash = `${lockPath}.discarded-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, trash);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(trash, { recursive: true, force: true });
}

/** Renames the prepared lock into place; false when a lock (never empty: it holds its owner) is there. */
async function claim(candidate: string, lockPath: string): Promise<boolean> {
  try {
    await rename(candidate, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'EISDIR') return false;
    throw error;
  }
}

/** Removes the lock of `dead`, if it still is that owner's, while no other process does the same. */
async function takeOver(lockPath: string, dead: Owner): Promise<void> {
  const marker = `${lockPath}.takeover`;
  try {
    await mkdir(marker);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await stat(marker).then((s) => Date.now() - s.mtimeMs, () => 0);
    if (since > STALE_TAKEOVER_MS) await rm(marker, { recursive: true, force: true });
    else await pause();
    return;
  }
  try {
    const holder = await readOwner(lockPath);
    if (holder && sameOwner(holder, dead)) await discard(lockPath);
  } finally {
    await rmdir(marker);
  }
}

function release(lockPath: string, owner: Owner): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    const holder = await readOwner(lockPath).catch(() => undefined);
    if (holder && sameOwner(holder, owner)) await discard(lockPath);
  };
}
