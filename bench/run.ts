/**
 * `npm run bench`: every benchmark in turn, each in its own process (so one's warm-up or heap does
 * not colour the next). Arguments after `--` go to each, e.g. `npm run bench -- 5000`.
 */
import { spawnSync } from 'node:child_process';

const BENCHMARKS = ['bench/crs.ts', 'bench/outbox.ts', 'bench/cloudevents.ts', 'bench/migration.ts', 'bench/signing.ts', 'bench/api/run.ts'];
const args = process.argv.slice(2);
for (const bench of BENCHMARKS) {
  console.log(`\n## ${bench}\n`);
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', bench, ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
