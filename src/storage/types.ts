import type { Knex } from 'knex';

/** A knex migration the registry applies; core and plugin migrations run in registration order. */
export interface Migration {
  /** Unique and stable forever, e.g. `core/001_zaak` or `outbox/001_outbox`. */
  name: string;
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

/**
 * The database the registry talks to. One SQL dialect (PostgreSQL) on two targets: a PostgreSQL
 * server, or embedded PGlite. Resource repositories and plugins with tables of their own use `knex`.
 */
export interface Storage {
  /** `postgres` or `pglite`. */
  readonly kind: string;
  /** Human-readable location (data directory, `memory`, or the server without its password). */
  readonly description: string;
  /** The primary: writes, and every read not routed to a replica. */
  readonly knex: Knex;
  /**
   * Read replicas (PostgreSQL with `replicas`): where a request's safe reads go (`RequestContext.db`).
   * Undefined without replicas: everything reads from `knex`.
   */
  readonly replicas?: ReplicaRouting;
  /**
   * Applies the migrations that have not run yet. On PostgreSQL, processes that migrate at once
   * take turns (an advisory lock): each waits, then finds the others' migrations applied.
   * `progress.onWait` is called when this one waits for another.
   */
  migrate(migrations: readonly Migration[], progress?: { onWait?: () => void }): Promise<string[]>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Knex.Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** One replica as the registry last saw it (metrics, readiness details). */
export interface ReplicaState {
  /** The replica's URL without its password. */
  readonly name: string;
  /** Whether safe reads may go to it now: it answered its last poll and lags no more than allowed. */
  readonly usable: boolean;
  /** Seconds since the primary wrote WAL the replica has not replayed (0 when it replayed all the primary had at its last poll). */
  readonly lagSeconds: number;
  /** Why it is skipped (`down`, `lagging`, `not a standby`); undefined when usable. */
  readonly skipped?: string;
  /** Safe reads this instance sent to it. */
  readonly reads: number;
}

/**
 * Sends a safe read to a replica when one may serve it, everything else to the primary. Replicas
 * are polled for their replay position; a read of a client goes to a replica only when that
 * replica replayed the client's last write (kept on the primary, so for every instance) and what
 * this instance already showed the client.
 */
export interface ReplicaRouting {
  /** The database a safe read by `clientId` reads from: a usable replica that is far enough, else the primary. */
  reader(clientId: string | undefined): Promise<Knex>;
  /** Whether `db` is one of the replicas (a read on it may be answered again from the primary). */
  isReplica(db: Knex): boolean;
  /** A read on replica `db` failed: the replica is skipped until it answers a poll again. */
  failed(db: Knex, error: unknown): void;
  /** After a write by `clientId` committed: its WAL position, for that client's later reads on any instance. Never throws. */
  written(clientId: string | undefined): Promise<void>;
  /** Each replica's state; `primaryReads` the safe reads this instance sent to the primary. */
  state(): { replicas: ReplicaState[]; primaryReads: number };
  /** Where skipped and recovered replicas are logged (the registry's logger once it runs). */
  useLog(log: { info(message: string, details?: Record<string, unknown>): void; warn(message: string, details?: Record<string, unknown>): void; error(message: string, details?: Record<string, unknown>): void }): void;
  close(): Promise<void>;
}

/** PostgreSQL error codes the registry turns into problems. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_CHECK_VIOLATION = '23514';

/**
 * A prepared statement whose result columns changed under it: PostgreSQL expands a `*` (`select
 * zaak.*`, `returning *`) when it prepares, and refuses to run it once a migration added a column.
 * Nothing of the statement ran, so it can run again under a new name.
 */
export function isStalePlan(error: unknown): boolean {
  const { code, routine, message } = (error ?? {}) as { code?: unknown; routine?: unknown; message?: unknown };
  // The routine names where PostgreSQL raised it whatever the server's language; the message in English.
  return code === '0A000' && (routine === 'RevalidateCachedQuery' || (typeof message === 'string' && message.includes('cached plan must not change result type')));
}
