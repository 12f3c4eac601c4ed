/**
 * The registry against a bare Express + pg baseline, on one seeded database per size.
 *
 *   npx tsx bench/api/run.ts [--sizes 10000,1000000] [--duration 5] [--warmup 3] [--rounds 1] [--backend postgres|pglite] [--connections 1,16]
 *
 * Servers run in child processes; this process drives the load (autocannon) and prints one Markdown
 * table per size, also written with the machine facts as JSON to bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { prepare, reset, sampleZaken } from './databases.js';
import { measure, type Measurement } from './measure.js';
import { backend, connectionCounts, duration, log, roundCount, selected, sizes, warmup } from './options.js';
import { machine, medians, residentMegabytes, table } from './report.js';
import { scenarios } from './scenarios.js';
import { drain, pause, start, stop } from './servers.js';

const facts = await machine();
mkdirSync('bench/results', { recursive: true });
for (const size of sizes) {
  const { database, seeded } = await prepare(size);
  const sample = await sampleZaken(database, size);
  const registry = await start('bench/api/registry-server.ts', database);
  const notificaties = backend === 'postgres' ? await start('bench/api/notificaties-server.ts', database) : undefined;
  const notifying = notificaties ? await start('bench/api/registry-server.ts', database, { NOTIFICATIES_URL: `${notificaties.base}/api/v1` }) : undefined;
  const enqueuing = notificaties ? await start('bench/api/registry-server.ts', database, { NOTIFICATIES_URL: `${notificaties.base}/api/v1`, OUTBOX_DISPATCH: 'false' }) : undefined;
  // Stopped (SIGSTOP) but for its own cells and the drains: its dispatcher would deliver the other
  // writers' outbox rows beside their cells.
  notifying?.child.kill('SIGSTOP');
  /** The notifying registry runs for `cells` alone. */
  const withNotifying = async <T>(cells: () => Promise<T>): Promise<T> => {
    notifying!.child.kill('SIGCONT');
    try {
      return await cells();
    } finally {
      await pause(database, notifying!.child);
    }
  };
  /** Notifications the Notificaties API has received so far (the drains' too). */
  const received = async () => Number(await (await fetch(`${notificaties!.base}/received`)).text());
  const baseline = backend === 'postgres' ? await start('bench/api/baseline-server.ts', database) : undefined;
  const ceiling = backend === 'postgres' ? await start('bench/api/ceiling-server.ts', database) : undefined;
  const rounds: Measurement[][] = [];
  let rss: number | undefined;
  let delivered: number | undefined;
  try {
    // Every registry path compiled before any cell is measured: the first cell measured ran at half
    // the rate of the same cell later in the run, while the bare servers have one path each.
    for (const scenario of await scenarios(sample, registry.base)) {
      const warmed = { registry, notifying, enqueuing }[scenario.target as 'registry' | 'notifying' | 'enqueuing'];
      if (!warmed || (scenario.target !== 'registry' && !selected(scenario.name))) continue;
      const warm = () => autocannon({ url: warmed.base, connections: 4, duration: warmup, requests: scenario.requests, headers: scenario.headers });
      await (scenario.target === 'notifying' ? withNotifying(warm) : warm());
    }
    for (let round = 1; round <= roundCount; round++) {
      // Every round from the seeded state, its ETags and statuses made anew.
      await reset(database);
      const measured: Measurement[] = [];
      for (const scenario of await scenarios(sample, registry.base)) {
        if (!selected(scenario.name) && ['registry', 'notifying', 'enqueuing'].includes(scenario.target)) continue;
        const server = { registry, notifying, enqueuing, baseline, ceiling }[scenario.target];
        if (!server) continue;
        for (const connections of connectionCounts) {
          let m: Measurement;
          if (scenario.target === 'notifying') {
            const before = await received();
            m = await withNotifying(() => measure(server, scenario, connections));
            delivered = (delivered ?? 0) + (await received()) - before;
          } else {
            m = await measure(server, scenario, connections);
          }
          if (scenario.target === 'enqueuing') m.drained = await drain(database, notifying!.child);
          log(`  ${roundCount > 1 ? `[${round}/${roundCount}] ` : ''}${m.scenario} @${connections}: ${m.requestsPerSecond} req/s, mean ${m.mean.toFixed(2)} ms, p50 ${m.p50} ms, p99 ${m.p99} ms, server CPU ${m.serverCpu?.toFixed(3)} ms/req, database CPU ${m.databaseCpu?.toFixed(3)} ms/req, load CPU ${m.loadCpu.toFixed(3)} ms/req${m.failed ? `, ${m.failed} failed` : ''}`);
          measured.push(m);
        }
      }
      rounds.push(measured);
    }
    rss = residentMegabytes(registry.child.pid!);
    if (delivered === 0) throw new Error('the notifying registry delivered no notification during its cells: its row measured writes that publish nothing');
  } finally {
    await stop(registry.child);
    if (notifying) notifying.child.kill('SIGCONT');
    if (notifying) await stop(notifying.child);
    if (enqueuing) await stop(enqueuing.child);
    if (notificaties) await stop(notificaties.child);
    if (baseline) await stop(baseline.child);
    if (ceiling) await stop(ceiling.child);
  }
  const header = `### ${size.toLocaleString('en')} zaken, ${facts.database}, ${facts.cores} cores (${facts.cpu}), Node ${facts.node}, ${duration} s per cell`;
  const seedLine = seeded ? `\nSeeded ${seeded.rows.toLocaleString('en')} rows in ${seeded.seconds.toFixed(1)} s (${seeded.rowsPerSecond.toLocaleString('en')} rows/s).\n` : '';
  const rssLine = rss === undefined ? '' : `\nRegistry RSS after all scenarios (mixed reads and writes): ${rss} MB.\n`;
  const deliveredLine = delivered === undefined ? '' : `\nNotifications the notifying registry delivered during its cells: ${delivered.toLocaleString('en')}.\n`;
  const measurements = medians(rounds);
  const drains = measurements.filter((m) => m.drained).map(({ connections, drained: d }) => `${d!.rows.toLocaleString('en')} rows after ${connections} connection(s) in ${d!.seconds.toFixed(1)} s (${Math.round(d!.rows / d!.seconds).toLocaleString('en')}/s${d!.cpuPerDelivery === undefined ? '' : `, ${d!.cpuPerDelivery.toFixed(3)} ms of its CPU each`})`);
  const drainedLine = drains.length ? `\nThe enqueuing cells' outbox rows, delivered afterwards by a dispatcher alone: ${drains.join('; ')}.\n` : '';
  const roundsLine = roundCount > 1 ? `\nEach cell the round of median throughput of ${roundCount} rounds (servers kept, data reset between rounds).\n` : '';
  const markdown = `${header}\n${seedLine}${roundsLine}\n${table(measurements)}\n${rssLine}${deliveredLine}${drainedLine}`;
  console.log(`\n${markdown}`);
  const file = `bench/results/api-${backend}-${size}`;
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(`${file}.json`, JSON.stringify({ size, backend, machine: facts, durationSeconds: duration, seeded, measurements, rounds, registryRssMegabytes: rss, notificationsDelivered: delivered }, null, 2));
}
