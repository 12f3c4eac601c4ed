import assert from 'node:assert/strict';
import {
  DeliveryError,
  createRegistry,
  postgresStorage,
  type Delivery,
  type DeliveryHandler,
  type DispatcherOptions,
  type Logger,
  type OutboxDelivery,
  type Plugin,
  type Registry,
  type Storage,
} from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { roundTripsDuring, statementsDuring } from './helpers/statements.js';
import { eventually as waitFor } from './helpers/eventually.js';
import { testCatalog } from './helpers/registry.js';
import { answer, listenWithModes, type ModalServer, type RecordedRequest } from './helpers/zgw-servers.js';

/** Small settings so retries, timeouts and polls take milliseconds. */
const FAST: DispatcherOptions = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 300, pollIntervalMs: 50, leaseMs: 1000 };
const KIND = 'test-delivery';

const eventually = <T>(check: () => T | Promise<T>, timeoutMs = 15_000) => waitFor(check, timeoutMs);

/** A gate handlers or stand-ins wait at while it is closed. */
class Gate {
  private opened!: () => void;
  private promise!: Promise<void>;
  constructor() {
    this.close();
  }
  wait(): Promise<void> {
    return this.promise;
  }
  open(): void {
    this.opened();
  }
  close(): void {
    this.promise = new Promise((resolve) => (this.opened = resolve));
  }
}

/** What a delivery posts to its stand-in target. */
interface Posted {
  id: number;
  attempt: number;
  key: string | null;
  payload: Record<string, unknown>;
}

/** One call of a handler, as the handler saw it. */
interface Call {
  delivery: Omit<OutboxDelivery, 'signal'>;
  outcome?: 'ok' | 'error';
  error?: string;
}

/**
 * The handler plugins deliver with: a real HTTP POST of the delivery to `<origin>/deliveries`, where
 * the origin is the delivery's target (`127.0.0.1:<port>`). 2xx is delivered, 4xx a permanent
 * failure (`DeliveryError`), anything else (5xx, timeout, refused connection) a failed attempt.
 */
async function postDelivery(delivery: OutboxDelivery): Promise<void> {
  const body: Posted = { id: delivery.id, attempt: delivery.attempt, key: delivery.key, payload: delivery.payload };
  const response = await fetch(`http://${delivery.target}/deliveries`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: delivery.signal,
  });
  await response.arrayBuffer();
  if (response.status >= 400 && response.status < 500) throw new DeliveryError(`refused: HTTP ${response.status}`, { permanent: true });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

/** A plugin delivering `kind` with `handler`, recording every call in `calls`. */
function deliveries(calls: Call[], handler: DeliveryHandler = postDelivery, kind = KIND): Plugin {
  return {
    name: `test-outbox-${kind}`,
    setup(api) {
      api.addDeliveryHandler(kind, async (delivery) => {
        const { signal: _signal, ...seen } = delivery;
        const call: Call = { delivery: seen };
        calls.push(call);
        try {
          await handler(delivery);
          call.outcome = 'ok';
        } catch (error) {
          call.outcome = 'error';
          call.error = String(error);
          throw error;
        }
      });
    },
  };
}

/** Posts a delivery once `gate` opens. */
const postAfter =
  (gate: Gate): DeliveryHandler =>
  async (delivery) => {
    await gate.wait();
    await postDelivery(delivery);
  };

const posted = (requests: RecordedRequest[]) => requests.map((r) => r.body as Posted);

for (const backend of BACKENDS) {
  describe(`Outbox on ${backend.name}`, () => {
    let storage: Storage;
    let registries: Registry[];
    let servers: ModalServer[];
    let cleanups: (() => Promise<void>)[];
    /** Errors the registries logged that mean the dispatcher itself broke (SQL errors, lost outcomes). */
    let breakage: string[];
    const logger: Logger = {
      debug() {},
      info() {},
      warn() {},
      error(message, details) {
        if (/claiming deliveries failed|recording a (delivery|failed delivery) failed/.test(message)) breakage.push(`${message} ${JSON.stringify(details)}`);
      },
    };

    // One database per backend (opening PGlite takes seconds); every test starts with an empty outbox.
    before(async () => {
      storage = await backend.open();
    });
    after(async () => storage?.close());
    beforeEach(() => {
      registries = [];
      servers = [];
      cleanups = [];
      breakage = [];
    });
    afterEach(async () => {
      for (const registry of registries.reverse()) await registry.close();
      for (const server of servers) await server.close();
      for (const cleanup of cleanups) await cleanup();
      await storage.knex('outbox').delete();
      assert.deepEqual(breakage, [], 'the dispatcher logged no failures of its own');
    });

    /** A registry on `on` (default: the suite's storage) that leaves the storage open when it closes. */
    async function start(plugins: Plugin[], outbox: DispatcherOptions = {}, on: Storage = storage): Promise<Registry> {
      const registry = await createRegistry({
        storage: { ...on, close: async () => {} },
        preset: 'none',
        authorization: 'development',
        logger,
        catalog: testCatalog(),
        outbox: { ...FAST, ...outbox },
        plugins,
      });
      registries.push(registry);
      return registry;
    }

    /** A stand-in target on 127.0.0.1 recording what it receives; `respond` answers in mode ok (default 204). */
    async function target(requests: RecordedRequest[], respond: (body: Posted) => number | Promise<number> = () => 204): Promise<ModalServer> {
      const server = await listenWithModes(requests, async (_req, res, recorded) => answer(res, await respond(recorded.body as Posted)));
      servers.push(server);
      return server;
    }

    const enqueue = (registry: Registry, list: Delivery | Delivery[]) =>
      registry.services.storage.transaction((tx) => registry.outbox.enqueue(tx, list));
    /** The statements matching `filter` while `total` deliveries to `host` are enqueued and delivered. */
    const statementsDelivering = (registry: Registry, host: string, total: number, filter: (sql: string) => boolean) =>
      statementsDuring(
        storage.knex,
        async () => {
          await enqueue(registry, Array.from({ length: total }, (_, i) => ({ kind: KIND, target: host, payload: { i } })));
          await eventually(async () => assert.equal(await rowCount(), 0));
        },
        filter,
      );
    const rowCount = async () => Number((await storage.knex('outbox').count({ n: '*' }))[0].n);

    it('stores the deliveries of one enqueue outside a transaction all or none', async () => {
      const registry = await start([]);
      const before = await rowCount();
      const unhandled = 'kind-without-handler'; // stays in the table, whatever the dispatcher does
      await assert.rejects(
        registry.outbox.enqueue(storage.knex, [
          { kind: unhandled, target: 'first.test', payload: { n: 1 } },
          { kind: unhandled, target: 'x'.repeat(301), payload: { n: 2 } },
        ]),
        /too long/,
      );
      assert.equal(await rowCount(), before, 'the first delivery is not stored without the second');
      await registry.outbox.enqueue(storage.knex, { kind: unhandled, target: 'single.test', payload: { n: 3 } });
      assert.deepEqual(await storage.knex('outbox').where('kind', unhandled).pluck('target'), ['single.test']);
      await storage.knex('outbox').where('kind', unhandled).delete();
    });

    it('delivers a delivery enqueued in a committed transaction, once, and removes it; never one whose transaction rolled back', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const calls: Call[] = [];
      const registry = await start([deliveries(calls)]);

      await assert.rejects(
        registry.services.storage.transaction(async (tx) => {
          await registry.outbox.enqueue(tx, { kind: KIND, target: server.host, key: 'k', payload: { n: 'rolled back' } });
          throw new Error('rollback');
        }),
        /rollback/,
      );
      await enqueue(registry, { kind: KIND, target: server.host, key: 'zaak-1', payload: { n: 'committed', nested: { a: [1, 2] } } });

      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(calls.length, 1, 'one handler call: the committed delivery only');
      const [{ delivery, outcome }] = calls;
      assert.equal(outcome, 'ok');
      assert.equal(delivery.kind, KIND);
      assert.equal(delivery.target, server.host);
      assert.equal(delivery.key, 'zaak-1');
      assert.equal(delivery.attempt, 1);
      assert.deepEqual(delivery.payload, { n: 'committed', nested: { a: [1, 2] } });
      assert.ok(Number.isInteger(delivery.id) && delivery.id > 0);
      assert.deepEqual(posted(requests), [{ id: delivery.id, attempt: 1, key: 'zaak-1', payload: { n: 'committed', nested: { a: [1, 2] } } }]);
      assert.deepEqual(await registry.outbox.list(), []);
      const counts = await registry.outbox.counts();
      assert.deepEqual(
        { pending: counts.pending, failed: counts.failed, inFlight: counts.inFlight, delivered: counts.delivered, failedAttempts: counts.failedAttempts, gaveUp: counts.gaveUp },
        { pending: 0, failed: 0, inFlight: 0, delivered: 1, failedAttempts: 0, gaveUp: 0 },
      );
    });

    if (backend.name === 'PostgreSQL') {
      it("records a delivery's outcome in one round trip, committed without waiting for the WAL flush", async () => {
        const requests: RecordedRequest[] = [];
        const server = await target(requests);
        const registry = await start([deliveries([])]);
        const sent = await roundTripsDuring(async () => {
          await enqueue(registry, { kind: KIND, target: server.host, key: 'one-trip', payload: { n: 1 } });
          await eventually(async () => assert.equal(await rowCount(), 0));
        });
        const outcome = sent.filter((text) => /delete from outbox/i.test(text));
        assert.equal(outcome.length, 1, sent.join('\n---\n'));
        // One statement, its own transaction, which it sets to commit asynchronously (no BEGIN, SET LOCAL, COMMIT).
        assert.match(outcome[0], /^with async_commit as \(select set_config\('synchronous_commit', 'off', true\)\)\s+delete from outbox\b/i);
        assert.equal(requests.length, 1);
      });

      it('records a failed attempt in one statement, committed without waiting for the WAL flush', async () => {
        const requests: RecordedRequest[] = [];
        const server = await target(requests, () => (requests.length === 1 ? 500 : 204));
        const registry = await start([deliveries([])]);
        const sent = await roundTripsDuring(async () => {
          await enqueue(registry, { kind: KIND, target: server.host, payload: { n: 1 } });
          await eventually(async () => assert.equal(await rowCount(), 0));
        });
        const outcome = sent.filter((text) => /update outbox o set claim = null/i.test(text));
        assert.equal(outcome.length, 1, sent.join('\n---\n'));
        assert.match(outcome[0], /^with async_commit as \(select set_config\('synchronous_commit', 'off', true\)\)\s+update outbox o\b/i);
        assert.ok(!sent.some((text) => /set local synchronous_commit/i.test(text)), 'no transaction of its own around it');
        assert.equal(requests.length, 2, 'failed once, then delivered');
      });

      // PostgreSQL only: holding a row lock beside the registry's statements needs a second connection.
      it("frees a delivery's slot once it is delivered: the next starts while its row is being deleted, and close() waits for the deletion", async () => {
        const requests: RecordedRequest[] = [];
        const server = await target(requests);
        const first = new Gate();
        const calls: Call[] = [];
        const handler: DeliveryHandler = async (delivery) => {
          if (calls.length === 1) await first.wait();
          await postDelivery(delivery);
        };
        // One slot: the second delivery can start only once the first has given it up.
        const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: 1, concurrency: 1, timeoutMs: 10_000, leaseMs: 30_000 });
        await enqueue(registry, [0, 1, 2].map((i) => ({ kind: KIND, target: server.host, payload: { i } })));
        await eventually(() => assert.equal(calls.length, 1));
        // Another transaction holds the first delivery's row: deleting it waits until that commits.
        const lock = await storage.knex.transaction();
        try {
          await lock('outbox').where('id', calls[0].delivery.id).forUpdate().select('id');
          first.open();
          await eventually(() => assert.deepEqual(calls.map((c) => c.outcome), ['ok', 'ok', 'ok']));
          const counts = await registry.outbox.counts();
          assert.deepEqual({ inFlight: counts.inFlight, claimed: counts.claimed, delivered: counts.delivered }, { inFlight: 0, claimed: 3, delivered: 0 });
          assert.equal(await rowCount(), 3, 'no row deleted while the first deletion waits');
          let closed = false;
          const closing = registry.close().then(() => (closed = true));
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.equal(closed, false, 'close() waits for the deletions it started');
          await lock.commit();
          await closing;
        } finally {
          if (!lock.isCompleted()) await lock.rollback();
        }
        assert.equal(await rowCount(), 0, 'every delivered row deleted before close() resolved');
        assert.equal(requests.length, 3);
      });
    }

    for (const [mode, what] of [
      ['error', 'answers 500'],
      ['hang', 'hangs (the attempt times out)'],
      ['refuse', 'refuses connections'],
    ] as const) {
      it(`retries while the target ${what}, and delivers once it is back`, async () => {
        const requests: RecordedRequest[] = [];
        const server = await target(requests);
        await server.setMode(mode);
        const calls: Call[] = [];
        const registry = await start([deliveries(calls)], { maxAttempts: 100 });

        await enqueue(registry, { kind: KIND, target: server.host, payload: { mode } });
        await eventually(() => assert.ok(calls.filter((c) => c.outcome === 'error').length >= 2, 'two failed attempts'));
        await server.setMode('ok');

        await eventually(async () => assert.equal(await rowCount(), 0));
        const delivered = calls.filter((c) => c.outcome === 'ok');
        assert.equal(delivered.length, 1);
        assert.ok(delivered[0].delivery.attempt >= 3, `delivered on attempt ${delivered[0].delivery.attempt}`);
        assert.deepEqual(
          calls.map((c) => c.delivery.attempt),
          calls.map((_, i) => i + 1),
          'one call per attempt, numbered from 1',
        );
        const received = posted(requests);
        if (mode === 'refuse') {
          // A refused connection never reaches the stand-in: it received the successful attempt only.
          assert.equal(received.length, 1);
          assert.ok(calls.slice(0, -1).every((c) => /fetch failed/.test(c.error ?? '')), 'the failed attempts were refused connections');
        } else {
          assert.ok(received.length >= 3, `the stand-in received ${received.length} attempts`);
          assert.deepEqual(received.map((r) => r.attempt), received.map((_, i) => i + 1));
        }
        assert.equal(received.at(-1)!.attempt, delivered[0].delivery.attempt);
        assert.ok(received.every((r) => r.id === delivered[0].delivery.id && r.payload.mode === mode));
        if (mode === 'hang') assert.ok(calls.slice(0, -1).every((c) => /timeout|aborted|300 ms/i.test(c.error ?? '')), calls.map((c) => c.error).join('; '));
        const counts = await registry.outbox.counts();
        assert.equal(counts.delivered, 1);
        assert.equal(counts.failedAttempts, calls.length - 1);
        assert.equal(counts.gaveUp, 0);
      });
    }

    it('gives up after maxAttempts (failed, listed with lastError and attempts), and retry() makes it pending and delivered', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('error');
      const gate = new Gate();
      const calls: Call[] = [];
      const handler: DeliveryHandler = async (delivery) => {
        await gate.wait();
        await postDelivery(delivery);
      };
      // A long timeout: the handler waits at the gate while the test looks at the counts.
      const registry = await start([deliveries(calls, handler)], { maxAttempts: 3, timeoutMs: 10_000 });

      await enqueue(registry, { kind: KIND, target: server.host, key: 'zaak-9', payload: { what: 'keeps failing' } });
      await eventually(() => assert.equal(calls.length, 1));
      let counts = await registry.outbox.counts();
      assert.equal(counts.pending, 1);
      assert.equal(counts.failed, 0);
      assert.deepEqual(counts.byKind, { [KIND]: { pending: 1, failed: 0 } });
      assert.equal(counts.inFlight, 1);
      assert.deepEqual(await registry.outbox.list({ status: 'failed' }), []);

      gate.open();
      const [failed] = await eventually(async () => {
        const list = await registry.outbox.list({ status: 'failed' });
        assert.equal(list.length, 1);
        return list;
      });
      assert.equal(failed.status, 'failed');
      assert.equal(failed.attempts, 3);
      assert.equal(failed.kind, KIND);
      assert.equal(failed.target, server.host);
      assert.equal(failed.key, 'zaak-9');
      assert.deepEqual(failed.payload, { what: 'keeps failing' });
      assert.match(failed.lastError ?? '', /HTTP 500/);
      assert.equal(requests.length, 3, 'three attempts reached the target');
      assert.deepEqual(await registry.outbox.list({ status: 'pending' }), []);
      assert.deepEqual((await registry.outbox.list({ kind: KIND })).map((e) => e.id), [failed.id]);
      assert.deepEqual(await registry.outbox.list({ kind: 'other' }), []);
      counts = await registry.outbox.counts();
      assert.equal(counts.pending, 0);
      assert.equal(counts.failed, 1);
      assert.deepEqual(counts.byKind, { [KIND]: { pending: 0, failed: 1 } });
      assert.equal(counts.oldestPendingMs, 0);
      assert.deepEqual(
        { inFlight: counts.inFlight, delivered: counts.delivered, failedAttempts: counts.failedAttempts, gaveUp: counts.gaveUp },
        { inFlight: 0, delivered: 0, failedAttempts: 3, gaveUp: 1 },
      );
      assert.equal(calls.length, 3, 'a failed delivery is not attempted again by itself');

      gate.close();
      assert.equal(await registry.outbox.retry({ status: 'failed' }), 1);
      await eventually(() => assert.equal(calls.length, 4));
      assert.equal(calls[3].delivery.attempt, 1, 'retry() gives a fresh set of attempts');
      counts = await registry.outbox.counts();
      assert.equal(counts.pending, 1);
      assert.equal(counts.failed, 0);
      assert.deepEqual(counts.byKind, { [KIND]: { pending: 1, failed: 0 } });
      const [retried] = await registry.outbox.list();
      assert.equal(retried.id, failed.id);
      assert.equal(retried.status, 'pending');

      await server.setMode('ok');
      gate.open();
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.deepEqual(posted(requests).at(-1), { id: failed.id, attempt: 1, key: 'zaak-9', payload: { what: 'keeps failing' } });
      counts = await registry.outbox.counts();
      assert.deepEqual(
        { pending: counts.pending, failed: counts.failed, byKind: counts.byKind, delivered: counts.delivered, gaveUp: counts.gaveUp, inFlight: counts.inFlight },
        { pending: 0, failed: 0, byKind: {}, delivered: 1, gaveUp: 1, inFlight: 0 },
      );
    });

    it('gives up when a failed attempt finds the delivery older than maxAgeMs, whatever the attempts left', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('error');
      const calls: Call[] = [];
      const registry = await start([deliveries(calls)], { maxAttempts: 1000, maxAgeMs: 250 });
      await enqueue(registry, { kind: KIND, target: server.host, payload: { old: true } });
      const [failed] = await eventually(async () => {
        const list = await registry.outbox.list({ status: 'failed' });
        assert.equal(list.length, 1);
        return list;
      });
      assert.ok(failed.attempts >= 1 && failed.attempts < 1000, `${failed.attempts} attempts`);
      assert.equal(failed.attempts, requests.length);
      assert.match(failed.lastError ?? '', /HTTP 500/);
      assert.equal((await registry.outbox.counts()).gaveUp, 1);
    });

    it('fails a delivery at once when the handler throws a permanent DeliveryError', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests, (body) => (body.payload.valid ? 204 : 422));
      const calls: Call[] = [];
      const registry = await start([deliveries(calls)], { maxAttempts: 10 });

      await enqueue(registry, [
        { kind: KIND, target: server.host, payload: { valid: false } },
        { kind: KIND, target: server.host, payload: { valid: true } },
      ]);
      const [failed] = await eventually(async () => {
        const list = await registry.outbox.list({ status: 'failed' });
        assert.equal(list.length, 1);
        assert.equal(await rowCount(), 1, 'the valid one was delivered');
        return list;
      });
      assert.equal(failed.attempts, 1);
      assert.deepEqual(failed.payload, { valid: false });
      assert.match(failed.lastError ?? '', /refused: HTTP 422/);
      assert.equal(calls.filter((c) => c.delivery.id === failed.id).length, 1, 'one attempt only');
      assert.equal(requests.length, 2);
      const counts = await registry.outbox.counts();
      assert.deepEqual(
        { pending: counts.pending, failed: counts.failed, delivered: counts.delivered, failedAttempts: counts.failedAttempts, gaveUp: counts.gaveUp },
        { pending: 0, failed: 1, delivered: 1, failedAttempts: 1, gaveUp: 1 },
      );
    });

    it('delivers deliveries with the same key one after the other in id order, without blocking other keys', async () => {
      const requests: RecordedRequest[] = [];
      const answered: string[] = [];
      let firstFailures = 0;
      // The first delivery of zaak-1 fails at least twice, and until both of zaak-2 have arrived:
      // zaak-2 must get through while zaak-1 is stuck (were it blocked, zaak-1 would never get through).
      const server = await target(requests, (body) => {
        const name = `${body.key}:${body.payload.seq}`;
        if (name === 'zaak-1:1' && (firstFailures < 2 || !answered.includes('zaak-2:2'))) {
          firstFailures++;
          return 500;
        }
        answered.push(name);
        return 204;
      });
      const active = new Map<string, number>();
      const overlaps: string[] = [];
      const calls: Call[] = [];
      const handler: DeliveryHandler = async (delivery) => {
        const key = delivery.key ?? '';
        if (active.get(key)) overlaps.push(`${key}: delivery ${delivery.id} started while another was in flight`);
        active.set(key, (active.get(key) ?? 0) + 1);
        try {
          // Hold the slot a little so an overlap, if the dispatcher allowed one, would show.
          await new Promise((resolve) => setTimeout(resolve, 10));
          await postDelivery(delivery);
        } finally {
          active.set(key, active.get(key)! - 1);
        }
      };
      const registry = await start([deliveries(calls, handler)], { maxAttempts: 100 });

      const row = (key: string, seq: number): Delivery => ({ kind: KIND, target: server.host, key, payload: { seq } });
      await enqueue(registry, [row('zaak-1', 1), row('zaak-2', 1), row('zaak-1', 2), row('zaak-2', 2), row('zaak-1', 3), row('zaak-1', 4)]);
      await eventually(async () => assert.equal(await rowCount(), 0));

      assert.deepEqual(overlaps, []);
      const ofKey = (key: string) => calls.filter((c) => c.delivery.key === key).map((c) => c.delivery);
      const first = ofKey('zaak-1');
      assert.ok(firstFailures >= 2);
      assert.deepEqual(
        first.map((d) => d.payload.seq),
        [...Array(firstFailures + 1).fill(1), 2, 3, 4],
        'zaak-1 in enqueue order, the first retried until delivered before the next starts',
      );
      const ids = [...new Set(first.map((d) => d.id))];
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in id order');
      assert.deepEqual(ofKey('zaak-2').map((d) => [d.payload.seq, d.attempt]), [[1, 1], [2, 1]]);
      assert.deepEqual(answered, ['zaak-2:1', 'zaak-2:2', 'zaak-1:1', 'zaak-1:2', 'zaak-1:3', 'zaak-1:4']);
    });

    it('keeps at most perTargetConcurrency deliveries in flight per target while another target proceeds', async () => {
      const slowRequests: RecordedRequest[] = [];
      const fastRequests: RecordedRequest[] = [];
      const release = new Gate();
      const slow = await target(slowRequests, async () => {
        await release.wait();
        return 204;
      });
      const fast = await target(fastRequests);
      const active = new Map<string, number>();
      const maxActive = new Map<string, number>();
      const handler: DeliveryHandler = async (delivery) => {
        const now = (active.get(delivery.target) ?? 0) + 1;
        active.set(delivery.target, now);
        maxActive.set(delivery.target, Math.max(maxActive.get(delivery.target) ?? 0, now));
        try {
          await postDelivery(delivery);
        } finally {
          active.set(delivery.target, active.get(delivery.target)! - 1);
        }
      };
      const calls: Call[] = [];
      const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: 2, concurrency: 16, timeoutMs: 10_000 });

      // The slow target's deliveries come first (lower ids, due earlier).
      await enqueue(registry, [
        ...Array.from({ length: 8 }, (_, i) => ({ kind: KIND, target: slow.host, payload: { i } })),
        ...Array.from({ length: 6 }, (_, i) => ({ kind: KIND, target: fast.host, payload: { i } })),
      ]);
      // The slow target holds two deliveries; the fast one gets all of its own meanwhile.
      await eventually(async () => {
        assert.equal(fastRequests.length, 6);
        assert.equal(slowRequests.length, 2);
        assert.equal((await registry.outbox.list({ limit: 1000 })).filter((e) => e.target === fast.host).length, 0);
      });
      assert.equal(active.get(slow.host), 2);
      assert.equal(calls.filter((c) => c.delivery.target === slow.host).length, 2, 'no third delivery to the slow target started');
      assert.equal((await registry.outbox.counts()).inFlight, 2);

      release.open();
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(slowRequests.length, 8);
      assert.equal(maxActive.get(slow.host), 2);
      assert.ok(maxActive.get(fast.host)! <= 2, `fast target: ${maxActive.get(fast.host)} at once`);
      assert.ok(calls.every((c) => c.outcome === 'ok' && c.delivery.attempt === 1));
    });

    it('claims a backlog in batches ahead of its slots: a claim per half batch, not one per delivery', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const release = new Gate();
      const calls: Call[] = [];
      const handler = postAfter(release);
      // Two slots for the target: it holds 2 × 8 claimed, and claims again when 8 are left (no polls meanwhile).
      const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: 2, concurrency: 4, timeoutMs: 10_000, leaseMs: 30_000, pollIntervalMs: 60_000 });
      const total = 40;
      await enqueue(registry, Array.from({ length: total }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));

      await eventually(async () => {
        const counts = await registry.outbox.counts();
        assert.deepEqual({ inFlight: counts.inFlight, claimed: counts.claimed }, { inFlight: 2, claimed: 16 });
      });
      assert.equal(calls.length, 2, 'two started; the other claimed ones wait for a slot');
      const claims = await statementsDuring(
        storage.knex,
        async () => {
          release.open();
          await eventually(async () => assert.equal(await rowCount(), 0));
        },
        (sql) => /for update of o skip locked/i.test(sql),
      );
      // 24 left after the first batch: 3 claims of 8 and a last one finding none. A delivery finishing
      // during a claim has it run again once done, which may find the target's share full (4–8 claims
      // seen under load). Far from one per delivery: at most one per two.
      assert.ok(claims.length >= 3 && claims.length <= (total - 16) / 2, `${claims.length} claims for ${total - 16} deliveries`);
      // A lease lost with the database's last moments means a delivery perhaps made twice, never one lost.
      assert.ok(claims.every((sql) => sql.includes(`set_config('synchronous_commit', 'off', true)`)), 'a claim commits without waiting for the WAL flush');
      assert.equal(requests.length, total);
      assert.equal(new Set(posted(requests).map((p) => p.id)).size, total, 'each delivered once');
      assert.ok(calls.every((c) => c.outcome === 'ok' && c.delivery.attempt === 1));
      await eventually(async () => assert.equal((await registry.outbox.counts()).claimed, 0));
    });

    it('has the outbox analyzed when a claim finds a backlog, once a minute at most: claims are planned on what it holds', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const registry = await start([deliveries([])], { perTargetConcurrency: 2, concurrency: 2 });
      // Analyzed empty: planned on this, a claim checked each candidate against every pending row.
      await storage.knex.raw('analyze outbox');
      const total = 40;
      const analyzed = await statementsDelivering(registry, server.host, total, (sql) => /^analyze\b/i.test(sql));
      assert.equal(analyzed.length, 1, 'a backlog of 40 for 2 slots: analyzed once, not on every full claim');
      const [{ reltuples }] = (await storage.knex('pg_class').where({ relname: 'outbox' }).select('reltuples')) as { reltuples: number }[];
      assert.ok(Number(reltuples) > 0, `the statistics count the backlog (reltuples ${reltuples})`);
      assert.equal(requests.length, total);
    });

    it("claims of a target only what its share has left: the deliveries held of it count", async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const release = new Gate();
      const calls: Call[] = [];
      // One slot for the target: it holds at most 1 × 8 claimed.
      const registry = await start([deliveries(calls, postAfter(release))], { perTargetConcurrency: 1, concurrency: 4, timeoutMs: 60_000, leaseMs: 180_000, pollIntervalMs: 60_000 });
      await enqueue(registry, Array.from({ length: 3 }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));
      await eventually(async () => assert.equal((await registry.outbox.counts()).claimed, 3));
      await enqueue(registry, Array.from({ length: 20 }, (_, i) => ({ kind: KIND, target: server.host, payload: { i: 3 + i } })));
      await eventually(async () => assert.ok((await registry.outbox.counts()).claimed > 3, 'more claimed'));
      // Five more, not eight: three of its share are held.
      assert.equal((await registry.outbox.counts()).claimed, 8);
      release.open();
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(new Set(posted(requests).map((p) => p.id)).size, 23, 'each delivered once');
    });

    it('records deliveries that finish while an outcome is being written together, in one statement', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const release = new Gate();
      const calls: Call[] = [];
      // Delivered, then held: all of them finish at once when the gate opens.
      let posted = 0;
      const handler: DeliveryHandler = async (delivery) => {
        await postDelivery(delivery);
        posted++;
        await release.wait();
      };
      const total = 12;
      const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: total, concurrency: total, timeoutMs: 10_000, leaseMs: 30_000 });
      await enqueue(registry, Array.from({ length: total }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));
      await eventually(() => assert.equal(posted, total));
      const outcomes = await statementsDuring(
        storage.knex,
        async () => {
          release.open();
          await eventually(async () => assert.equal(await rowCount(), 0));
        },
        (sql) => /delete from outbox\b/i.test(sql),
      );
      assert.equal(requests.length, total);
      // The first is recorded at once, the eleven that finish while it is being written in one statement.
      assert.equal(outcomes.length, 2, outcomes.join('\n'));
      assert.equal((await registry.outbox.counts()).delivered, total);
    });

    it('starts a delivery claimed ahead only while its lease has two timeouts left; one past that is released, not counted', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests, async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return 204;
      });
      // The slot is one: a delivery is started after the one before it finished (or timed out), so the
      // previous handler's end is no later than the start decision, and the lease left at that end
      // is at least what the rule left at the decision, however long the dispatcher took to get there.
      const starts: { claim: string; leasedUntil: number; previousDone: number }[] = [];
      let previousDone = -Infinity;
      const calls: Call[] = [];
      const handler: DeliveryHandler = async (delivery) => {
        const { rows } = await storage.knex.raw('select claim, extract(epoch from leased_until) * 1000 as until from outbox where id = ?', [delivery.id]);
        starts.push({ claim: String(rows[0].claim), leasedUntil: Number(rows[0].until), previousDone });
        await postDelivery(delivery);
        previousDone = Date.now();
      };
      // One slot, eight claimed at once, 300 ms each: past 600 ms a claim has less than two timeouts
      // (10 s) of its lease left, so the third or so is released. The timeout is far above an attempt's
      // time, also on a busy machine: no attempt times out, so every retry seen is a released claim's.
      const timeoutMs = 5_000;
      const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: 1, concurrency: 1, timeoutMs, leaseMs: 2 * timeoutMs + 600 });
      const total = 10;
      const releases = await statementsDelivering(registry, server.host, total, (sql) => /^update "outbox" set "claim"/i.test(sql));
      assert.ok(releases.length >= 1, 'claims held too long were released');
      assert.equal(requests.length, total);
      assert.equal(new Set(posted(requests).map((p) => p.id)).size, total, 'each delivered once');
      assert.ok(calls.every((c) => c.outcome === 'ok' && c.delivery.attempt === 1), 'a released claim is not an attempt');
      // Some started from a claim held ahead (the one before it had the same claim); each with at least
      // two timeouts of its lease left (less a millisecond: the embedded database's clock has millisecond
      // steps). Started by the queue alone, the last of a claim would have had about 8.5 s.
      assert.ok(starts.some((start, i) => i > 0 && start.claim === starts[i - 1].claim), 'a delivery started from a claim held ahead');
      const left = starts.map((start) => Math.floor(start.leasedUntil - start.previousDone));
      assert.ok(left.every((ms) => ms >= 2 * timeoutMs - 1), `lease left when the delivery before it was done: ${left.join(', ')} ms`);
    });

    it('claims nothing ahead when the lease is shorter than two timeouts: each delivery starts with all of its lease', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const release = new Gate();
      const calls: Call[] = [];
      const handler = postAfter(release);
      const registry = await start([deliveries(calls, handler)], { perTargetConcurrency: 2, concurrency: 4, timeoutMs: 600, leaseMs: 1000 });
      await enqueue(registry, Array.from({ length: 10 }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));
      await eventually(async () => assert.equal((await registry.outbox.counts()).inFlight, 2));
      assert.equal((await registry.outbox.counts()).claimed, 2, 'only what runs is claimed');
      release.open();
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(new Set(posted(requests).map((p) => p.id)).size, 10);
    });

    it('claims again once a deletion frees the room it held: one slot, nothing claimed ahead, a one-minute poll', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const calls: Call[] = [];
      // A lease of two timeouts: one delivery claimed at a time, and the one being deleted holds that room.
      const registry = await start([deliveries(calls)], { perTargetConcurrency: 1, concurrency: 1, timeoutMs: 10_000, leaseMs: 20_000, pollIntervalMs: 60_000 });
      await enqueue(registry, Array.from({ length: 5 }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(new Set(posted(requests).map((p) => p.id)).size, 5);
    });

    it('claims the next delivery with a key as soon as the one before it is delivered, not at the next poll', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const calls: Call[] = [];
      const registry = await start([deliveries(calls)], { pollIntervalMs: 60_000 });
      await enqueue(registry, Array.from({ length: 4 }, (_, i) => ({ kind: KIND, target: server.host, key: 'zaak-1', payload: { i } })));
      await eventually(async () => assert.equal(await rowCount(), 0), 5000);
      assert.deepEqual(posted(requests).map((p) => p.payload.i), [0, 1, 2, 3]);
    });

    it('delivers every row exactly once with two dispatchers on one database', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests, async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return 204;
      });
      // Enqueue with a registry that has no handler (so no dispatcher), then start two that deliver.
      const producer = await start([]);
      const total = 200;
      await enqueue(
        producer,
        Array.from({ length: total }, (_, i) => ({ kind: KIND, target: server.host, key: i % 10 === 0 ? `k${i % 3}` : undefined, payload: { i } })),
      );
      const ids = (await producer.outbox.list({ limit: 1000 })).map((e) => e.id);
      assert.equal(ids.length, total);

      let second: Storage = storage;
      if (storage.kind === 'postgres') {
        // Its own connection pool on the same database, as a second instance would have.
        second = await postgresStorage({ connection: storage.description });
        const opened = second;
        cleanups.push(() => opened.close());
      }
      const callsA: Call[] = [];
      const callsB: Call[] = [];
      const options: DispatcherOptions = { concurrency: 8, perTargetConcurrency: 8, timeoutMs: 10_000, leaseMs: 30_000 };
      const [a, b] = await Promise.all([start([deliveries(callsA)], options), start([deliveries(callsB)], options, second)]);

      await eventually(async () => assert.equal(await rowCount(), 0), 30_000);
      const perId = new Map<number, number>();
      for (const { id } of posted(requests)) perId.set(id, (perId.get(id) ?? 0) + 1);
      assert.deepEqual([...perId.keys()].sort((x, y) => x - y), ids);
      assert.deepEqual([...perId.entries()].filter(([, n]) => n !== 1), [], 'no row delivered twice');
      assert.equal(callsA.length + callsB.length, total, 'one handler call per row');
      const [countsA, countsB] = await Promise.all([a.outbox.counts(), b.outbox.counts()]);
      assert.equal(countsA.delivered + countsB.delivered, total);
      assert.ok(countsA.delivered > 0 && countsB.delivered > 0, `both dispatchers delivered (${countsA.delivered} and ${countsB.delivered})`);
    });

    it('close() while a delivery hangs leaves it pending; a new registry on the same storage delivers it', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('hang');
      const calls: Call[] = [];
      const first = await start([deliveries(calls)], { maxAttempts: 5 });
      await enqueue(first, { kind: KIND, target: server.host, payload: { n: 1 } });
      await eventually(() => assert.equal(requests.length, 1, 'the delivery is in flight'));
      await first.close();

      const [left] = await first.outbox.list();
      assert.ok(left, 'the row is still there');
      assert.equal(left.status, 'pending');
      assert.deepEqual(calls.map((c) => c.outcome), ['error'], 'the handler was stopped');

      await server.setMode('ok');
      const secondCalls: Call[] = [];
      const second = await start([deliveries(secondCalls)]);
      await eventually(async () => assert.equal(await rowCount(), 0));
      assert.equal(secondCalls.length, 1);
      assert.equal(secondCalls[0].delivery.id, left.id);
      assert.equal(posted(requests).at(-1)!.id, left.id);
      assert.equal((await second.outbox.counts()).delivered, 1);
    });

    it('delivers a delivery claimed by an earlier version (its lease in next_attempt_at, none in leased_until) once that lease is over, not before', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      const registry = await start([deliveries([])], { dispatch: false });
      await enqueue(registry, [
        { kind: KIND, target: server.host, key: 'held-by-old', payload: { n: 'lease running' } },
        { kind: KIND, target: server.host, key: 'lapsed-old', payload: { n: 'lease over' } },
      ]);
      const [running, lapsed] = await registry.outbox.list();
      // The claims an instance of the earlier version left behind when it died.
      await storage.knex('outbox').where('id', running.id).update({ claim: '00000000-0000-4000-8000-000000000001', attempts: 1, next_attempt_at: storage.knex.raw(`now() + interval '1 hour'`) });
      await storage.knex('outbox').where('id', lapsed.id).update({ claim: '00000000-0000-4000-8000-000000000002', attempts: 1, next_attempt_at: storage.knex.raw(`now() - interval '1 second'`) });
      await registry.outbox.deliverDue();
      assert.deepEqual(posted(requests).map((p) => p.payload.n), ['lease over'], 'the lapsed claim is delivered, the running one left alone');
      assert.deepEqual((await registry.outbox.list()).map((e) => e.id), [running.id]);
    });

    it('a claim leases a delivery without touching its backoff or any indexed column (an update in place); listed, it is next attempted when the lease ends', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('hang');
      const registry = await start([deliveries([])], { timeoutMs: 10_000, leaseMs: 30_000 });
      await enqueue(registry, { kind: KIND, target: server.host, payload: { n: 1 } });
      const [{ createdAt }] = await registry.outbox.list();
      await eventually(() => assert.equal(requests.length, 1, 'the delivery is in flight'));

      const [row] = (await storage.knex('outbox').select('next_attempt_at', 'leased_until', 'claim')) as { next_attempt_at: Date; leased_until: Date; claim: string | null }[];
      assert.ok(row.claim, 'claimed');
      assert.equal(new Date(row.next_attempt_at).toISOString(), createdAt, 'the backoff column is left as it was');
      const leaseLeft = new Date(row.leased_until).getTime() - Date.now();
      assert.ok(leaseLeft > 20_000 && leaseLeft <= 30_000, `leased for 30 s (${leaseLeft} ms left)`);
      const [listed] = await registry.outbox.list();
      assert.equal(listed.nextAttemptAt, new Date(row.leased_until).toISOString(), 'in flight: next attempted when its lease runs out');

      // Columns an index holds or filters on: a claim changing one of them could not be a HOT update.
      const indexes = (await storage.knex('pg_indexes').where({ tablename: 'outbox' }).pluck('indexdef')) as string[];
      assert.ok(indexes.length >= 4, indexes.join('\n'));
      for (const column of ['claim', 'leased_until', 'attempts']) {
        assert.deepEqual(indexes.filter((definition) => new RegExp(`\\b${column}\\b`).test(definition)), [], `no index covers ${column}`);
      }
      await server.setMode('ok');
    });

    it('close() interrupts a hanging delivery without counting the attempt: due again at once, not given up on its last attempt', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('hang');
      const calls: Call[] = [];
      // One attempt: were the interrupted attempt counted, the delivery would be given up.
      const first = await start([deliveries(calls)], { maxAttempts: 1, backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
      await enqueue(first, { kind: KIND, target: server.host, payload: { n: 1 } });
      await eventually(() => assert.equal(requests.length, 1, 'the delivery is in flight'));
      await first.close();

      const [left] = await first.outbox.list();
      assert.ok(left, 'the row is still there');
      assert.deepEqual(
        { status: left.status, attempts: left.attempts },
        { status: 'pending', attempts: 0 },
        `released by the shutdown, not failed by its own timeout (lastError: ${left.lastError})`,
      );
      assert.ok(Date.parse(left.nextAttemptAt) <= Date.now() + 1000, `due again at once, not after a backoff (next attempt ${left.nextAttemptAt})`);
      const counts = await first.outbox.counts();
      assert.equal(counts.failedAttempts, 0);
      assert.equal(counts.gaveUp, 0);
    });

    it('close() releases the deliveries claimed ahead and waiting for a slot: due again at once, their attempts not counted', async () => {
      const requests: RecordedRequest[] = [];
      const server = await target(requests);
      await server.setMode('hang');
      const calls: Call[] = [];
      // One slot, a lease of five timeouts: the other four are claimed ahead and wait.
      const first = await start([deliveries(calls)], { perTargetConcurrency: 1, concurrency: 1, maxAttempts: 1, timeoutMs: 2000, leaseMs: 10_000 });
      await enqueue(first, Array.from({ length: 5 }, (_, i) => ({ kind: KIND, target: server.host, payload: { i } })));
      await eventually(async () => {
        assert.equal(requests.length, 1, 'one delivery in flight');
        assert.equal((await first.outbox.counts()).claimed, 5);
      });
      await first.close();

      const left = await first.outbox.list();
      assert.deepEqual(left.map((e) => ({ status: e.status, attempts: e.attempts })), Array.from({ length: 5 }, () => ({ status: 'pending', attempts: 0 })));
      assert.ok(left.every((e) => Date.parse(e.nextAttemptAt) <= Date.now() + 1000), 'due again at once');
      assert.deepEqual(await storage.knex('outbox').whereNotNull('claim').pluck('id'), [], 'no claim left behind');
      assert.equal(calls.length, 1, 'none of the waiting ones started');
    });
  });
}
