import type { Request, RequestHandler, Response } from 'express';
import type { Storage } from '../storage/types.js';
import { MIGRATIONS_TABLE } from '../storage/knex-storage.js';

/** How long readiness waits for the database before it counts as unreachable. */
const DATABASE_TIMEOUT_MS = 2000;
const UNDEFINED_TABLE = '42P01';

export interface ReadinessOptions {
  storage: Storage;
  /** Every migration the registry registered: all of them must be applied. */
  migrationNames: () => readonly string[];
  /** True from the moment shutdown begins. */
  shuttingDown: () => boolean;
  /** Per plugin: what is degraded, reported without changing the status. */
  details?: ReadonlyMap<string, () => string | undefined>;
}

/** Each check's result: `ok`, or why it fails. */
export interface ReadinessReport {
  status: 'ready' | 'unavailable';
  checks: { shutdown: string; database: string; migrations: string };
  /** What plugins report degraded (by plugin name), when any is. */
  details?: Record<string, string>;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const send = (res: Response, status: number, body: unknown) => {
  res.status(status).setHeader('cache-control', 'no-store');
  res.json(body);
};

/** Liveness: the process answers; no I/O, so a slow database never gets a live process restarted. */
export const healthHandler: RequestHandler = (_req: Request, res: Response) => send(res, 200, { status: 'ok' });

/** Readiness checks: not shutting down, the database answers in time, every migration applied. */
export function readinessCheck(options: ReadinessOptions): () => Promise<ReadinessReport> {
  // Applied migrations are not undone while the process runs: once current, checked no more.
  let migrationsCurrent = false;
  return async () => {
    const checks = { shutdown: options.shuttingDown() ? 'shutting down' : 'ok', database: 'ok', migrations: 'ok' };
    try {
      await withTimeout(options.storage.knex.raw('select 1'), DATABASE_TIMEOUT_MS);
      if (!migrationsCurrent) {
        const applied = new Set(await withTimeout(options.storage.knex(MIGRATIONS_TABLE).pluck('name') as Promise<string[]>, DATABASE_TIMEOUT_MS));
        const pending = options.migrationNames().filter((name) => !applied.has(name));
        if (pending.length) checks.migrations = `${pending.length} pending: run zaakregister migrate`;
        else migrationsCurrent = true;
      }
    } catch (error) {
      if ((error as { code?: string }).code === UNDEFINED_TABLE) checks.migrations = 'never migrated: run zaakregister migrate';
      else checks.database = `unreachable: ${(error as Error).message}`;
    }
    const ready = Object.values(checks).every((check) => check === 'ok');
    const details = Object.fromEntries([...(options.details ?? [])].flatMap(([plugin, detail]) => {
      const line = detail();
      return line === undefined ? [] : [[plugin, line]];
    }));
    return { status: ready ? 'ready' : 'unavailable', checks, ...(Object.keys(details).length ? { details } : {}) };
  };
}

/** Readiness as a handler: 200 when every check passes, otherwise 503 naming the failing ones. */
export function readinessHandler(check: () => Promise<ReadinessReport>): RequestHandler {
  return async (_req, res) => {
    const report = await check();
    send(res, report.status === 'ready' ? 200 : 503, report);
  };
}
