import { spawn, type ChildProcess } from 'node:child_process';
import knexFactory, { type Knex } from 'knex';
import { cpuMilliseconds } from './cpu.js';
import type { Measurement } from './measure.js';

/** Every server started: stopped when this process ends, also when one of them fails to start. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGTERM');
});

export function start(script: string, database: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env, DATABASE: database }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const port = /ready (\d+)/.exec(String(chunk))?.[1];
      if (port) resolve({ child, base: `http://127.0.0.1:${port}` });
    });
  });
}

export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/**
 * Stops `child` (SIGSTOP) where none of its transactions is open: a write the cell's last requests
 * began would otherwise hold its locks until the process runs again, and the next `reset` would wait
 * for it. Stopped first, then checked (checked before stopping, a dispatcher working off a backlog
 * kept some claim running at every look): statements already sent are waited for (a stopped process
 * sends no more), and a transaction left open between two statements is resumed and stopped again a
 * moment later. Every client of the database counts; between cells the other servers are idle.
 */
export async function pause(database: string, child: ChildProcess): Promise<void> {
  const knex: Knex = knexFactory({ client: 'pg', connection: database, pool: { min: 0, max: 1 } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    for (let attempt = 1; ; attempt++) {
      child.kill('SIGSTOP');
      for (let waited = 0; ; waited += 20) {
        // Clients only: an autovacuum worker on the tables the cell wrote is also 'active'.
        const busy = await knex.raw(`select state, left(query, 200) as query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
          and backend_type = 'client backend' and (state = 'active' or state like 'idle in transaction%')`);
        if (!busy.rows.length) return;
        if (busy.rows.some((row: { state: string }) => row.state !== 'active')) break;
        if (waited > 10_000) throw new Error(`a statement ran on for 10 s after its process stopped: ${JSON.stringify(busy.rows)}`);
        await sleep(20);
      }
      if (attempt === 200) throw new Error('a transaction stayed open at 200 tries to stop its process');
      child.kill('SIGCONT');
      await sleep(20);
    }
  } finally {
    await knex.destroy();
  }
}

/**
 * Delivers what an `enqueuing` cell (with its warm-up) left in the outbox with `worker` (the notifying registry: its
 * dispatcher is what `zaakregister deliver` runs), resumed for it: how many rows, how long, and the
 * worker's CPU per delivery.
 */
export async function drain(database: string, worker: ChildProcess): Promise<NonNullable<Measurement['drained']>> {
  const knex: Knex = knexFactory({ client: 'pg', connection: database, pool: { min: 0, max: 1 } });
  const pending = async () => Number((await knex('outbox').where('status', 'pending').count({ n: '*' }))[0].n);
  try {
    const rows = await pending();
    if (!rows) throw new Error('the enqueuing registry left no outbox row: its row measured writes that enqueue nothing');
    const cpuBefore = cpuMilliseconds(worker.pid!);
    const started = performance.now();
    worker.kill('SIGCONT');
    while ((await pending()) > 0) {
      if (performance.now() - started > 300_000) throw new Error('the outbox was not delivered within 5 minutes');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMilliseconds(worker.pid!);
    await pause(database, worker);
    const failed = Number((await knex('outbox').where('status', 'failed').count({ n: '*' }))[0].n);
    if (failed) throw new Error(`${failed} of the enqueuing registry's notifications failed to be delivered`);
    return { rows, seconds, cpuPerDelivery: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / rows };
  } finally {
    await knex.destroy();
  }
}
