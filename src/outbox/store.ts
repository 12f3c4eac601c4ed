import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { currentRequest } from '../ops/request-scope.js';
import { insertRow, namedRows, namedStatement, type NamedStatement } from '../storage/named-statement.js';
import { DEFERRED_WRITE } from '../storage/statement-batching.js';
import type { Delivery, OutboxEntry, OutboxCounts, OutboxSelection } from '../plugin-types.js';
export type { Delivery, OutboxEntry, OutboxCounts, OutboxSelection };

/** A claimed delivery: leased to one dispatcher until `leased_until`, identified by its claim token. */
export interface ClaimedEntry extends OutboxEntry {
  claim: string;
}

const TABLE = 'outbox';
/** Of row `o`: no earlier delivery with its key is pending (checked again when it is locked). */
const FIRST_OF_ITS_KEY = `(ordering_key is null or not exists (
  select 1 from ${TABLE} e where e.ordering_key = o.ordering_key and e.status = 'pending' and e.id < o.id))`;
/**
 * A CTE that makes its statement's own transaction commit without waiting for the WAL flush. Claims
 * and the outcomes of attempts commit so: a crash of the database can lose only their last moments,
 * which means a delivery made again (at-least-once), never one lost. Enqueueing stays in the change's
 * own, fully durable transaction. Each of these is one statement outside a transaction, so the
 * setting (local to that transaction) travels with it: no `BEGIN`, `SET LOCAL`, `COMMIT`.
 */
const ASYNC_COMMIT = `async_commit as (select set_config('synchronous_commit', 'off', true))`;

/**
 * Row `o` may be claimed: pending, its backoff over, and held by no dispatcher (or its lease ran out).
 * A claim without `leased_until` was made by a version before `core/011_outbox_lease`, which kept its
 * lease in `next_attempt_at`: over once that is.
 */
const DUE = `o.status = 'pending' and o.next_attempt_at <= now() and (o.claim is null or o.leased_until is null or o.leased_until <= now())`;

/**
 * Claims due deliveries (see `claim`): the candidates, numbered per target after the limit (before
 * it, every due row would be numbered); each target's share of them; those still due locked; their lease.
 */
const CLAIM = `with ${ASYNC_COMMIT},
  candidates as (
    select id, target, row_number() over (partition by target order by next_attempt_at, id) as nth from (
      select id, target, next_attempt_at from ${TABLE} o
       where ${DUE} and kind = any(?) and target <> all(?) and id <> all(?)
         and ${FIRST_OF_ITS_KEY}
       order by next_attempt_at, id
       limit ?) due),
  room as (select * from unnest(?::text[], ?::int[]) as r(target, room)),
  chosen as (
    select o.id from ${TABLE} o join candidates c on c.id = o.id left join room r on r.target = c.target
     where c.nth <= coalesce(r.room, ?) and ${DUE} and ${FIRST_OF_ITS_KEY}
     for update of o skip locked),
  claimed as (
    update ${TABLE} o set attempts = o.attempts + 1, claim = ?, leased_until = now() + ? * interval '1 millisecond'
      from chosen where o.id = chosen.id returning o.*)
select claimed.*, (select count(*) from candidates)::int as seen from async_commit left join claimed on true`;

/** Held by a dispatcher, a delivery is not attempted again before its lease runs out. */
function nextAttempt(row: Record<string, unknown>): unknown {
  const lease = row.claim != null ? (row.leased_until as Date | string | null) : null;
  return lease !== null && new Date(lease) > new Date(row.next_attempt_at as Date | string) ? lease : row.next_attempt_at;
}

function toEntry(row: Record<string, unknown>): ClaimedEntry {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  return {
    id: Number(row.id),
    kind: String(row.kind),
    target: String(row.target),
    key: (row.ordering_key as string | null) ?? null,
    payload: row.payload as Record<string, unknown>,
    status: row.status as OutboxEntry['status'],
    attempts: Number(row.attempts),
    createdAt: iso(row.created_at),
    nextAttemptAt: iso(nextAttempt(row)),
    lastError: (row.last_error as string | null) ?? null,
    requestId: (row.request_id as string | null) ?? null,
    claim: row.claim as string,
  };
}

const publicEntry = ({ claim: _claim, ...entry }: ClaimedEntry): OutboxEntry => entry;

function select(db: Knex, selection: OutboxSelection): Knex.QueryBuilder {
  const query = db(TABLE);
  if (selection.ids) query.whereIn('id', selection.ids);
  if (selection.status) query.where('status', selection.status);
  if (selection.kind) query.where('kind', selection.kind);
  return query;
}

/**
 * Deletes delivered rows by (id, claim): a row claimed by another dispatcher since is left alone. One
 * statement, planned once per connection (a transaction of its own sent as text was parsed and
 * planned each time), committing asynchronously (`ASYNC_COMMIT`).
 */
const COMPLETE = `with ${ASYNC_COMMIT}
  delete from ${TABLE} o using unnest(?::bigint[], ?::uuid[]) as done(id, claim), async_commit
   where o.id = done.id and o.claim = done.claim`;

/**
 * Records deliveries made: at once when nothing is being recorded, else together with the others
 * that finished meanwhile, in one statement (a round trip per batch, not per delivery).
 */
function groupedCompletions(knex: Knex): (entry: ClaimedEntry) => Promise<void> {
  let queued: { entry: ClaimedEntry; done(error?: unknown): void }[] = [];
  let recording = false;
  let statement: NamedStatement | undefined;
  async function record(): Promise<void> {
    recording = true;
    while (queued.length) {
      const batch = queued;
      queued = [];
      let failure: unknown;
      try {
        statement ??= namedStatement('outbox_complete', knex.raw(COMPLETE, [null, null]));
        await namedRows(knex, statement, [batch.map((c) => c.entry.id), batch.map((c) => c.entry.claim)]);
      } catch (error) {
        failure = error;
      }
      for (const completion of batch) completion.done(failure);
    }
    recording = false;
  }
  return (entry) =>
    new Promise<void>((resolve, reject) => {
      queued.push({ entry, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!recording) void record();
    });
}

/** The outbox table's statements; every time is the database's `now()`, so instances agree. */
export function outboxStore(knex: Knex) {
  /** Planned once per connection. */
  let claimStatement: NamedStatement | undefined;
  return {
    async insert(db: Knex | Knex.Transaction, deliveries: Delivery[]): Promise<void> {
      if (!deliveries.length) return;
      const requestId = currentRequest()?.id ?? null;
      const rows = deliveries.map((d) => ({ kind: d.kind, target: d.target, ordering_key: d.key ?? null, payload: JSON.stringify(d.payload), request_id: requestId }));
      // One statement, so that outside a transaction too the deliveries are stored all or none.
      if (rows.length === 1) await insertRow(db, TABLE, rows[0], DEFERRED_WRITE);
      else await db(TABLE).insert(rows).options(DEFERRED_WRITE);
    },

    /**
     * Claims due deliveries of `kinds`, in one statement: reads up to `candidates` of them (unlocked),
     * takes of each target as many as `room(target)` allows (`perTarget` for a target not in it), then
     * locks the taken ones that are still due, skipping any another dispatcher is claiming, and leases
     * them for `leaseMs`. A delivery waits while an earlier one with its key is pending. `held` are ids
     * the caller holds already (their lease may have run out). `seen`: how many candidates there were
     * (as many as asked for: more may be due); `leasedAt`: when the lease was asked for (this process's
     * monotonic clock; it runs from a later `now()`).
     *
     * Not a transaction of its own: as one statement it commits with its answer, in one round trip (the
     * candidates read, the targets' shares picked, the lock and the lease were three).
     */
    async claim(options: { kinds: string[]; candidates: number; busyTargets: string[]; held: number[]; leaseMs: number; perTarget: number; room: ReadonlyMap<string, number> }): Promise<{ claimed: ClaimedEntry[]; seen: number; leasedAt: number }> {
      const leasedAt = performance.now();
      if (!options.kinds.length || options.candidates <= 0) return { claimed: [], seen: 0, leasedAt };
      claimStatement ??= namedStatement('outbox_claim', knex.raw(CLAIM, Array<null>(9).fill(null)));
      // The rows claimed, each with `seen`; when none is, one row of nulls with it.
      const rows = await namedRows<Record<string, unknown> & { seen: number }>(knex, claimStatement, [
        options.kinds,
        options.busyTargets,
        options.held,
        options.candidates,
        [...options.room.keys()],
        [...options.room.values()],
        options.perTarget,
        randomUUID(),
        options.leaseMs,
      ]);
      const claimed = rows.filter((row) => row.id != null).map(toEntry).sort((a, b) => a.id - b.id);
      return { claimed, seen: rows[0]?.seen ?? 0, leasedAt };
    },

    /**
     * Fresh planner statistics for the outbox, which swings between empty and a backlog faster than
     * autovacuum looks (and where it is off, never looked at): planned on an outbox analyzed empty,
     * a claim checked each candidate's key against every pending row (100 ms a claim at 7,000).
     */
    async analyze(): Promise<void> {
      await knex.raw(`analyze ${TABLE}`);
    },

    /** Delivered: the row goes. Only the claim holder may (a dispatcher whose lease ran out may not). */
    complete: groupedCompletions(knex),

    /** Not delivered: try again after `retryInMs`, or give up (failed) when told to or out of attempts or age. */
    async fail(entry: ClaimedEntry, failure: { error: string; retryInMs: number; giveUp: boolean; maxAttempts: number; maxAgeMs: number }): Promise<'pending' | 'failed'> {
      // Committed asynchronously (`ASYNC_COMMIT`), by (id, claim): a row another dispatcher claimed since is left alone.
      const { rows } = await knex.raw(
        `with ${ASYNC_COMMIT}
         update ${TABLE} o set claim = null, leased_until = null, last_error = ?, next_attempt_at = now() + ? * interval '1 millisecond',
            status = case when ? or o.attempts >= ? or o.created_at <= now() - ? * interval '1 millisecond' then 'failed' else 'pending' end
           from async_commit where o.id = ? and o.claim = ? returning o.status`,
        [failure.error.slice(0, 2000), failure.retryInMs, failure.giveUp, failure.maxAttempts, failure.maxAgeMs, entry.id, entry.claim],
      );
      return (rows as { status: 'pending' | 'failed' }[])[0]?.status ?? 'pending';
    },

    /**
     * Extends the leases of deliveries this dispatcher still runs or records, by (id, claim), for
     * `leaseMs` from now: a delivery slower than its lease is not claimed by another dispatcher
     * meanwhile. Answers the ids whose claim is still theirs.
     */
    async renew(entries: ClaimedEntry[], leaseMs: number): Promise<Set<number>> {
      if (!entries.length) return new Set();
      const { rows } = await knex.raw(
        `with ${ASYNC_COMMIT}
         update ${TABLE} o set leased_until = now() + ? * interval '1 millisecond'
           from unnest(?::bigint[], ?::uuid[]) as held(id, claim), async_commit
          where o.id = held.id and o.claim = held.claim returning o.id`,
        [leaseMs, entries.map((e) => e.id), entries.map((e) => e.claim)],
      );
      return new Set((rows as { id: string | number }[]).map((row) => Number(row.id)));
    },

    /** Not attempted after all (shutdown, a claim held too long to start): due again at once, the attempt not counted. */
    async release(entries: ClaimedEntry[]): Promise<void> {
      if (!entries.length) return;
      // By (id, claim): a row another dispatcher claimed since is left alone.
      await knex(TABLE)
        .whereIn(['id', 'claim'], entries.map((e) => [e.id, e.claim]))
        // Its backoff was over when it was claimed: only the lease goes (an update in place, see `core/011_outbox_lease`).
        .update({ claim: null, leased_until: null, attempts: knex.raw('greatest(attempts - 1, 0)') });
    },

    async list(selection: OutboxSelection & { limit?: number } = {}): Promise<OutboxEntry[]> {
      const rows = (await select(knex, selection).orderBy('id').limit(selection.limit ?? 100)) as Record<string, unknown>[];
      return rows.map(toEntry).map(publicEntry);
    },

    /**
     * Makes deliveries due now with a fresh set of attempts: failed ones, and pending ones waiting
     * out a backoff. Deliveries in flight are left alone. Answers how many.
     */
    async retry(selection: OutboxSelection): Promise<number> {
      return select(knex, selection)
        .whereNull('claim')
        .update({ status: 'pending', attempts: 0, next_attempt_at: knex.fn.now() });
    },

    async counts(): Promise<OutboxCounts> {
      const rows = (await knex(TABLE)
        .select('kind', 'status')
        .count({ n: '*' })
        .min({ oldest: 'created_at' })
        .groupBy('kind', 'status')) as { kind: string; status: 'pending' | 'failed'; n: number; oldest: Date }[];
      const counts: OutboxCounts = { pending: 0, failed: 0, oldestPendingMs: 0, byKind: {} };
      for (const row of rows) {
        const n = Number(row.n);
        counts[row.status] += n;
        (counts.byKind[row.kind] ??= { pending: 0, failed: 0 })[row.status] += n;
        if (row.status === 'pending') counts.oldestPendingMs = Math.max(counts.oldestPendingMs, Date.now() - new Date(row.oldest).getTime());
      }
      return counts;
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
