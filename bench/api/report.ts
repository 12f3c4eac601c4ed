import { readFileSync } from 'node:fs';
import os from 'node:os';
import knexFactory, { type Knex } from 'knex';
import type { Measurement } from './measure.js';
import { SERVER, backend } from './options.js';

/** A process's resident set (Linux), in MB. */
export function residentMegabytes(pid: number): number | undefined {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Math.round(Number(line[1]) / 1024) : undefined;
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));

export function table(measurements: Measurement[]): string {
  const lines = [
    '| scenario | conn. | req/s | mean ms | p50 ms | p90 ms | p99 ms | server CPU ms/req | database CPU ms/req | load CPU ms/req | req/s vs baseline | mean vs baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of measurements) {
    const names = [m.baseline ?? []].flat();
    // Per piece of work: a handeling against the separate calls it replaces.
    const perSecond = (x: Measurement) => x.requestsPerSecond / (x.requestsPerOperation ?? 1);
    const perOperation = (x: Measurement) => x.mean * (x.requestsPerOperation ?? 1);
    const base = measurements.filter((b) => names.includes(b.scenario) && b.connections === m.connections).sort((a, b) => perSecond(b) - perSecond(a))[0];
    const ratio = (a: number, b: number) => (b ? `${(a / b).toFixed(2)}x` : '–');
    lines.push(
      `| ${m.scenario}${m.failed ? ` (**${m.failed} failed**)` : ''} | ${m.connections} | ${m.requestsPerSecond.toLocaleString('en')} | ${m.mean.toFixed(2)} | ${ms(m.p50)} | ${ms(m.p90)} | ${ms(m.p99)} | ${m.serverCpu === undefined ? '–' : m.serverCpu.toFixed(3)} | ${m.databaseCpu === undefined ? '–' : m.databaseCpu.toFixed(3)} | ${m.loadCpu.toFixed(3)} | ${base ? ratio(perSecond(m), perSecond(base)) : ''} | ${base ? ratio(perOperation(m), perOperation(base)) : ''} |`,
    );
  }
  return lines.join('\n');
}

export async function machine(): Promise<Record<string, unknown>> {
  const knex: Knex = knexFactory({ client: 'pg', connection: SERVER, pool: { min: 0, max: 1 } });
  try {
    const version = backend === 'postgres' ? String((await knex.raw('show server_version')).rows[0].server_version) : 'PGlite';
    return { cores: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, database: backend === 'postgres' ? `PostgreSQL ${version}` : version };
  } finally {
    await knex.destroy();
  }
}

/** Per cell (scenario and connections), the round whose throughput is the median. */
export function medians(rounds: Measurement[][]): Measurement[] {
  return rounds[0].map((first) => {
    const cell = rounds.map((round) => round.find((m) => m.scenario === first.scenario && m.connections === first.connections)!);
    return cell.sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor((cell.length - 1) / 2)];
  });
}
