import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

/** Where Debian's package installs it (`apt-get install pgbouncer`), or the first on PATH. */
const CANDIDATES = ['/usr/sbin/pgbouncer', 'pgbouncer'];

export interface PgBouncer {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` through the pooler. */
  url(database: string): string;
  /** The installed version, e.g. `1.18.0`. */
  version: string;
  stop(): Promise<void>;
}

/** The binary, or the reason there is none. */
export function pgbouncerBinary(): string | { error: string } {
  for (const candidate of CANDIDATES) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // Not this one.
    }
  }
  return { error: 'pgbouncer is not installed (Debian: apt-get install pgbouncer; .ci/run installs it)' };
}

/**
 * Whether the PgBouncer tests run here, and if not why: they need the binary; under CI=true its
 * absence fails them, elsewhere the file says why it registers none.
 */
export function pgbouncerAvailability(): { binary: string } | { error: string; fail: boolean } {
  const binary = pgbouncerBinary();
  if (typeof binary === 'string') return { binary };
  return { error: binary.error, fail: process.env.CI === 'true' };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A PgBouncer in front of `upstream` (host and port of a trust-auth PostgreSQL server) on a free
 * port, in `mode` pooling with `poolSize` server connections per database: fewer than the
 * registry's own, so consecutive transactions of one client connection land on different server connections.
 */
export async function startPgBouncer(binary: string, { upstream, mode = 'transaction', poolSize = 2 }: { upstream: URL; mode?: 'transaction' | 'session'; poolSize?: number }): Promise<PgBouncer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(upstream.username) || 'postgres';
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer refuses to run as root: it drops to the PostgreSQL user, who must read its directory.
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    chmodSync(dir, 0o777);
    for (const file of ['users.txt', 'pgbouncer.ini']) chmodSync(path.join(dir, file), 0o644);
  }
  const version = /(\d+\.\d+\.\d+)/.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once it accepts connections.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start: ${stderr.trim()}`);
    const accepting = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (accepting) break;
    if (attempt > 100) throw new Error(`pgbouncer did not listen on ${port}: ${stderr.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    version,
    url: (database) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
