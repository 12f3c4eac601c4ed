import { readFileSync, readdirSync } from 'node:fs';
import { backend } from './options.js';

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS = 100;

/** CPU time a process has used (Linux, in ms): the server's own cost, whatever share of the cores it got. */
export function cpuMilliseconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU ms of each PostgreSQL process on this machine (the bench's server is local; any other cluster
 * on it counts too), by pid: what the database spends, beside the server process, on the cores they
 * share. Undefined on PGlite (in the server process) or without /proc.
 */
export function databaseCpu(): Map<string, number> | undefined {
  if (backend === 'pglite') return undefined;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const byPid = new Map<string, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
    const [utime, stime] = stat.slice(stat.lastIndexOf(') ') + 2).split(' ').slice(11, 13).map(Number);
    byPid.set(entry, ((utime + stime) * 1000) / CLOCK_TICKS);
  }
  return byPid.size ? byPid : undefined;
}

/**
 * The CPU ms PostgreSQL spent between two `databaseCpu` readings, by the processes alive at the
 * second. One that ended in between (a backend of a pool that shrank, a parallel worker, an
 * autovacuum worker) is missed: counted when its parent reaps it, it would bring all it ever used
 * (counted so in one run, they lifted the write cells' figures up to fourfold).
 */
export function databaseCpuBetween(before: Map<string, number> | undefined, after: Map<string, number> | undefined): number | undefined {
  if (!before || !after) return undefined;
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
