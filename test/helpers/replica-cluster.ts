import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './throwaway-postgres.js';

/**
 * A PostgreSQL primary of its own (initdb in a temporary directory, `wal_level=replica`) and a
 * streaming replica of it made with `pg_basebackup -R`, each on a free port of 127.0.0.1, from the
 * server binaries of the machine (Debian: /usr/lib/postgresql/<major>/bin, package postgresql).
 */
export interface ReplicaCluster {
  /** `postgres://postgres@127.0.0.1:<port>/test` of the primary. */
  primaryUrl: string;
  /** The same database on the replica. */
  replicaUrl: string;
  /** Runs one statement on the replica (`select pg_wal_replay_pause()`). */
  onReplica(sql: string): Promise<unknown[]>;
  onPrimary(sql: string): Promise<unknown[]>;
  /** `pg_ctl stop -m immediate`: the replica dies as a crashed server does. */
  killReplica(): void;
  startReplica(): void;
  stop(): void;
}

/** The directory of initdb, pg_ctl and pg_basebackup, or why there is none. */
export function postgresBinaries(): string | { error: string } {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((major) => existsSync(path.join(root, major, 'bin', 'pg_basebackup'))) : [];
  majors.sort((a, b) => Number(b) - Number(a));
  if (majors.length) return path.join(root, majors[0], 'bin');
  return { error: 'no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) in /usr/lib/postgresql/<major>/bin (Debian: apt-get install postgresql)' };
}

/** PostgreSQL refuses to run as root: there, the servers run as `postgres`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

export async function startReplicaCluster(bin: string): Promise<ReplicaCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-replicas-'));
  const owner = serverUser();
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  const run = (command: string, args: string[]) => execFileSync(path.join(bin, command), args, { env, ...owner, stdio: 'pipe', cwd: dir });
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const pgCtl = (data: string, ...args: string[]) => run('pg_ctl', ['-D', data, '-l', path.join(dir, `${path.basename(data)}.log`), '-w', '-t', '60', ...args]);
  try {
    if (owner) {
      chmodSync(dir, 0o755);
      execFileSync('chown', [`${owner.uid}:${owner.gid}`, dir]);
    }
    mkdirSync(primaryDir, { mode: 0o700 });
    if (owner) execFileSync('chown', [`${owner.uid}:${owner.gid}`, primaryDir]);
    run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    appendFileSync(
      path.join(primaryDir, 'postgresql.conf'),
      [`port = ${primaryPort}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'wal_level = replica', 'max_wal_senders = 4', 'fsync = off', 'max_connections = 100', ''].join('\n'),
    );
    appendFileSync(path.join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    pgCtl(primaryDir, 'start');
    const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/test`;
    await query(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, 'create database test');
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '--checkpoint=fast']);
    appendFileSync(path.join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    pgCtl(replicaDir, 'start');
    const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/test`;
    return {
      primaryUrl,
      replicaUrl,
      onReplica: (sql) => query(replicaUrl, sql),
      onPrimary: (sql) => query(primaryUrl, sql),
      killReplica: () => void pgCtl(replicaDir, 'stop', '-m', 'immediate'),
      startReplica: () => void pgCtl(replicaDir, 'start'),
      stop() {
        for (const data of [replicaDir, primaryDir]) {
          try {
            pgCtl(data, 'stop', '-m', 'fast');
          } catch {
            // Not running.
          }
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const data of [replicaDir, primaryDir]) {
      try {
        pgCtl(data, 'stop', '-m', 'immediate');
      } catch {
        // Never started.
      }
    }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start a primary and a replica: ${String((error as { stderr?: Buffer }).stderr ?? error)}`, { cause: error });
  }
}
