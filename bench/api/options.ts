/** The command line of `bench/api/run.ts` (see there), and what follows from it. */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  // `npm run bench -- 5000` passes a count meant for the other benchmarks: ignored here.
  allowPositionals: true,
  options: {
    sizes: { type: 'string' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    backend: { type: 'string', default: 'postgres' },
    connections: { type: 'string', default: '1,16' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
export const backend = values.backend === 'pglite' ? 'pglite' : 'postgres';
export const sizes = (values.sizes ?? (backend === 'pglite' ? '10000' : '10000,1000000')).split(',').map(Number);
export const duration = Number(values.duration);
export const warmup = Number(values.warmup);
export const connectionCounts = values.connections!.split(',').map(Number);
export const roundCount = Math.max(1, Number(values.rounds));
export const SERVER = process.env.PG_BENCH_URL ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const log = (line: string) => console.error(line);
/** Whether `--only` (texts separated by `|`, any of which a name contains) selects a scenario; without it, every one. */
export const selected = (name: string) => !values.only || values.only.split('|').some((text) => name.includes(text));
