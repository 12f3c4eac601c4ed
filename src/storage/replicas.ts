import type { Knex } from 'knex';
import type { ReplicaRouting } from './types.js';

/** Where the WAL position of each client's last write is kept: on the primary, seen by every instance at once. */
export const CLIENT_POSITION_TABLE = 'zaakregister_client_position';

interface Replica {
  name: string;
  knex: Knex;
  replayed?: bigint;
  /** When the replica last answered a poll. */
  answeredAt: number;
  down: boolean;
  standby: boolean;
  retryAt: number;
  backoffMs: number;
  lagMs: number;
  reads: number;
  /** What was last logged about it: a state is logged once, when it changes. */
  logged: string;
}

/** `16/B374D848` as a number, comparable. */
export function parseLsn(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

const MAX_BACKOFF_MS = 5_000;
/** Clients whose seen position this instance remembers (the oldest forgotten first). */
const MAX_CLIENTS = 100_000;

/**
 * Polls the primary's WAL position and each replica's replay position every `min(250 ms,
 * maxLagMs / 4)`. A replica's lag is the time since the primary was first seen at a position the
 * replica has not replayed: an idle primary gives no lag, a paused replay a growing one.
 */
export function replicaRouting(options: { primary: Knex; replicas: { name: string; knex: Knex }[]; maxLagMs: number }): ReplicaRouting {
  const { primary, maxLagMs } = options;
  const intervalMs = Math.max(10, Math.min(250, Math.floor(maxLagMs / 4)));
  const replicas: Replica[] = options.replicas.map(({ name, knex }) => ({ name, knex, answeredAt: 0, down: false, standby: true, retryAt: 0, backoffMs: intervalMs, lagMs: 0, reads: 0, logged: 'usable' }));
  /** The primary's positions by when they were first seen, oldest first. */
  const observed: { at: number; lsn: bigint }[] = [];
  /** Per client: the position of the newest state this instance showed it (monotonic reads). */
  const seen = new Map<string, bigint>();
  let primaryReads = 0;
  let log: Parameters<ReplicaRouting['useLog']>[0] | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const usable = (replica: Replica, now: number) =>
    !replica.down && replica.standby && replica.replayed !== undefined && now - replica.answeredAt <= Math.max(maxLagMs, 4 * intervalMs) && replica.lagMs <= maxLagMs;
  const skipReason = (replica: Replica, now: number) =>
    replica.down || now - replica.answeredAt > Math.max(maxLagMs, 4 * intervalMs) ? 'down' : !replica.standby ? 'not a standby' : replica.lagMs > maxLagMs ? 'lagging' : undefined;

  function report(replica: Replica, now: number, error?: unknown): void {
    const reason = skipReason(replica, now) ?? 'usable';
    if (reason === replica.logged) return;
    replica.logged = reason;
    if (reason === 'usable') log?.info('read replica usable again', { replica: replica.name });
    else log?.warn(`read replica skipped: ${reason}`, { replica: replica.name, lagMs: replica.lagMs, ...(error ? { error: String((error as Error).message ?? error) } : {}) });
  }

  async function pollReplica(replica: Replica, now: number): Promise<void> {
    if (replica.down && now < replica.retryAt) return;
    try {
      const { rows } = (await withTimeout(
        replica.knex.raw('select pg_last_wal_replay_lsn()::text as replayed, pg_is_in_recovery() as standby'),
        Math.max(2000, 4 * intervalMs),
      )) as { rows: { replayed: string | null; standby: boolean }[] };
      replica.answeredAt = Date.now();
      replica.down = false;
      replica.backoffMs = intervalMs;
      replica.standby = rows[0].standby && rows[0].replayed !== null;
      const replayed = rows[0].replayed === null ? undefined : parseLsn(rows[0].replayed);
      // Replay only moves forward; a smaller answer (a replica rebuilt) starts it over.
      replica.replayed = replayed;
    } catch (error) {
      replica.down = true;
      replica.retryAt = Date.now() + replica.backoffMs;
      replica.backoffMs = Math.min(MAX_BACKOFF_MS, replica.backoffMs * 2);
      report(replica, Date.now(), error);
      return;
    }
    const behind = replica.replayed === undefined ? undefined : observed.find((o) => o.lsn > replica.replayed!);
    replica.lagMs = behind ? Date.now() - behind.at : 0;
    report(replica, Date.now());
  }

  async function poll(): Promise<void> {
    const now = Date.now();
    try {
      const { rows } = (await primary.raw('select pg_current_wal_lsn()::text as lsn')) as { rows: { lsn: string }[] };
      const lsn = parseLsn(rows[0].lsn);
      if (!observed.length || observed[observed.length - 1].lsn < lsn) observed.push({ at: now, lsn });
    } catch {
      // The primary's own trouble shows in readiness; replicas are still polled.
    }
    await Promise.all(replicas.map((replica) => pollReplica(replica, now)));
    // Positions every replica replayed tell no lag any more (the newest is kept to compare with); a
    // replica that is down keeps its last position, so its lag is measured right when it is back.
    const slowest = replicas.reduce<bigint | undefined>((min, r) => (r.replayed === undefined ? min : min === undefined || r.replayed < min ? r.replayed : min), undefined);
    while (observed.length > 1 && (observed.length > 10_000 || (slowest !== undefined && observed[0].lsn <= slowest && observed[1].lsn <= slowest))) observed.shift();
  }

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void poll().finally(schedule), intervalMs);
    timer.unref();
  };
  const ready = poll().finally(schedule);

  const remember = (clientId: string | undefined, lsn: bigint | undefined) => {
    if (clientId === undefined || lsn === undefined) return;
    const before = seen.get(clientId);
    if (before !== undefined && before >= lsn) return;
    seen.delete(clientId);
    seen.set(clientId, lsn);
    if (seen.size > MAX_CLIENTS) seen.delete(seen.keys().next().value!);
  };
  let turn = 0;

  return {
    async reader(clientId) {
      await ready;
      const now = Date.now();
      const candidates = replicas.filter((replica) => usable(replica, now));
      let needed = clientId === undefined ? 0n : (seen.get(clientId) ?? 0n);
      if (candidates.length && clientId !== undefined) {
        try {
          const row = (await primary(CLIENT_POSITION_TABLE).where({ client_id: clientId }).first(primary.raw('lsn::text as lsn'))) as { lsn: string } | undefined;
          if (row) needed = needed > parseLsn(row.lsn) ? needed : parseLsn(row.lsn);
        } catch {
          // Without the client's position no replica is known to be far enough.
          needed = -1n;
        }
      }
      const far = needed < 0n ? [] : candidates.filter((replica) => replica.replayed! >= needed);
      if (!far.length) {
        primaryReads++;
        remember(clientId, observed.at(-1)?.lsn);
        return primary;
      }
      const chosen = far[turn++ % far.length];
      chosen.reads++;
      remember(clientId, chosen.replayed);
      return chosen.knex;
    },
    isReplica: (db) => replicas.some((replica) => replica.knex === db),
    failed(db, error) {
      const replica = replicas.find((candidate) => candidate.knex === db);
      if (!replica) return;
      replica.down = true;
      replica.retryAt = Date.now() + replica.backoffMs;
      report(replica, Date.now(), error);
    },
    async written(clientId) {
      if (clientId === undefined) return;
      try {
        // The insert position after COMMIT is at or past the commit record: a replica that replayed it has the write.
        const { rows } = (await primary.raw(
          `insert into ${CLIENT_POSITION_TABLE} (client_id, lsn) values (?, pg_current_wal_insert_lsn())
           on conflict (client_id) do update set lsn = greatest(${CLIENT_POSITION_TABLE}.lsn, excluded.lsn) returning lsn::text as lsn`,
          [clientId],
        )) as { rows: { lsn: string }[] };
        remember(clientId, parseLsn(rows[0].lsn));
      } catch (error) {
        // The write committed: its answer stands, and the failure is told (the primary answers nothing now anyway).
        log?.error('could not record the WAL position of a write: other instances may read from a replica behind it', { clientId, error: String((error as Error).message ?? error) });
      }
    },
    state() {
      const now = Date.now();
      return {
        primaryReads,
        replicas: replicas.map((replica) => ({
          name: replica.name,
          usable: usable(replica, now),
          lagSeconds: replica.lagMs / 1000,
          skipped: skipReason(replica, now),
          reads: replica.reads,
        })),
      };
    },
    useLog(logger) {
      log = logger;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await ready.catch(() => undefined);
      await Promise.all(replicas.map((replica) => replica.knex.destroy()));
    },
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** One line for readiness: each replica and whether reads go to it (`postgres://r1/db usable; postgres://r2/db lagging`). */
export function replicaDetail(routing: ReplicaRouting): string {
  return routing
    .state()
    .replicas.map((replica) => `${replica.name} ${replica.skipped ?? 'usable'}`)
    .join('; ');
}
