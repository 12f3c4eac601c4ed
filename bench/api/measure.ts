import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { cpuMilliseconds, databaseCpu, databaseCpuBetween } from './cpu.js';
import { duration, warmup } from './options.js';

export interface Scenario {
  name: string;
  /**
   * Which server: the registry, the registry that publishes notifications (`notifying`), one that
   * only enqueues them (`enqueuing`: its deliveries left to another process), the bare baseline, or
   * the ceiling (pre-rendered JSON pages).
   */
  target: 'registry' | 'notifying' | 'enqueuing' | 'baseline' | 'ceiling';
  /** The baseline scenario it is compared with; of several, the fastest at the same connections. */
  baseline?: string | string[];
  requests: autocannon.Request[];
  headers?: Record<string, string>;
  /** Status class that counts as success (304 scenarios). */
  expect?: '2xx' | '3xx';
  /**
   * The requests are one piece of work, in order (a zaak, then its status, ...: later ones read what
   * earlier ones answered): every connection runs them from the first. Compared with its baseline per
   * piece of work, not per request.
   */
  sequence?: boolean;
}

export interface Measurement {
  scenario: string;
  target: string;
  connections: number;
  requestsPerSecond: number;
  /**
   * Mean latency in ms by Little's law (connections / throughput; each connection waits for its
   * answer before the next request): autocannon records whole milliseconds, too coarse below a few ms.
   */
  mean: number;
  /** CPU ms the server process spent per request (its database work not included). */
  serverCpu?: number;
  /** CPU ms PostgreSQL's processes on this machine spent per request (all of them: backends, WAL writer, autovacuum). */
  databaseCpu?: number;
  /** CPU ms this process (autocannon, the load) spent per request: whether the load, not a server, filled a core. */
  loadCpu: number;
  p50: number;
  p90: number;
  p99: number;
  failed: number;
  baseline?: string | string[];
  /** Requests per piece of work: the length of a `sequence` scenario's list, else 1. */
  requestsPerOperation: number;
  /** `enqueuing`: the outbox rows its cell left, then delivered by a dispatcher alone (the notifying registry's). */
  drained?: { rows: number; seconds: number; cpuPerDelivery?: number };
}

/** Each connection starts its own stretch of the request list: clients never walk one zaak in lockstep. */
function staggered(requests: autocannon.Request[], connections: number) {
  let next = 0;
  return (client: autocannon.Client) => {
    const shift = Math.floor((next++ * requests.length) / connections) % requests.length;
    (client as unknown as { setRequests(r: autocannon.Request[]): void }).setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
  };
}

export async function measure(server: { base: string; child: ChildProcess }, scenario: Scenario, connections: number): Promise<Measurement> {
  const options = { url: server.base, connections, requests: scenario.requests, headers: scenario.headers, timeout: 30 };
  const setupClient = scenario.sequence ? undefined : staggered(scenario.requests, connections);
  // Warm-up, the same for every server: JIT, pools, caches. One second measured the registry's
  // compilation more than its steady state (0.6x of it on pages at 16 connections; the bare servers
  // reach theirs within one second).
  await autocannon({ ...options, duration: warmup, setupClient });
  const cpuBefore = cpuMilliseconds(server.child.pid!);
  const databaseBefore = databaseCpu();
  const loadBefore = process.cpuUsage();
  const result = await autocannon({ ...options, duration, setupClient });
  const loadSpent = process.cpuUsage(loadBefore);
  const cpuAfter = cpuMilliseconds(server.child.pid!);
  const databaseSpent = databaseCpuBetween(databaseBefore, databaseCpu());
  const expected = scenario.expect ?? '2xx';
  const failed = result.errors + result.timeouts + ['1xx', '2xx', '3xx', '4xx', '5xx'].filter((c) => c !== expected).reduce((sum, c) => sum + ((result as any)[c] ?? 0), 0);
  return {
    scenario: scenario.name,
    target: scenario.target,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    mean: (connections * 1000) / result.requests.average,
    serverCpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / result.requests.total,
    databaseCpu: databaseSpent === undefined ? undefined : databaseSpent / result.requests.total,
    loadCpu: (loadSpent.user + loadSpent.system) / 1000 / result.requests.total,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    failed,
    baseline: scenario.baseline,
    requestsPerOperation: scenario.sequence ? scenario.requests.length : 1,
  };
}
