import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Duplex } from 'node:stream';
import knexFactory from 'knex';
import { DirectoryInUseError, lockDirectory } from './directory-lock.js';
import { knexStorage } from './knex-storage.js';
import { registryTypes } from './pg-types.js';
import { batchStatements, type PgConnection } from './statement-batching.js';
import type { JsonSchema } from '../operation.js';
import { checkOptions } from '../options.js';
import { databaseStringProblem, POSTGRES_URL } from './database-string.js';
import type { Storage } from './types.js';

type PGliteInstance = import('@electric-sql/pglite').PGlite;

export interface PgliteOptions {
  /** A directory for the data files, or `memory` (nothing kept). */
  dataDir: string;
}

/** The options' JSON Schema, checked when the storage is opened. */
export const pgliteOptionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['dataDir'],
  properties: { dataDir: { type: 'string', description: 'A directory for the data files, or memory (nothing kept).' } },
};

/** A dataDir that is a URL: a server's (meant for postgresStorage) or of an unknown scheme (a typo); never made a directory. */
function dataDirProblems(dataDir: unknown): { path: string; message: string }[] {
  if (typeof dataDir !== 'string') return [];
  if (POSTGRES_URL.test(dataDir)) return [{ path: '/dataDir', message: 'is a PostgreSQL URL, no directory: pass it to postgresStorage({ connection })' }];
  const problem = databaseStringProblem(dataDir);
  return problem ? [{ path: '/dataDir', message: problem }] : [];
}

/**
 * Embedded PostgreSQL (PGlite, PostgreSQL compiled to WebAssembly). knex talks to it with its stock
 * `pg` client over an in-process stream that carries the PostgreSQL wire protocol, so values come
 * back exactly as from a server. PGlite has one connection: the pool holds one, and a directory is
 * guarded by a lock so a second process cannot open (and corrupt) it.
 */
export async function pgliteStorage(options: PgliteOptions): Promise<Storage> {
  // PGlite is one process's database: nothing streams from it, so it has no replicas to read from.
  const replicas = options && 'replicas' in options ? [{ path: '/replicas', message: 'needs a PostgreSQL primary: read replicas are streaming replicas of a server (postgresStorage)' }] : [];
  checkOptions('pgliteStorage', pgliteOptionsSchema, options, [...dataDirProblems(options?.dataDir), ...replicas]);
  const inMemory = options.dataDir === 'memory';
  const dataDir = inMemory ? undefined : path.resolve(options.dataDir);
  const release = dataDir ? await lockDataDirectory(dataDir) : undefined;
  let db: PGliteInstance;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    db = await PGlite.create(dataDir ? { dataDir } : {});
  } catch (error) {
    await release?.();
    throw error;
  }
  const knex = knexFactory({
    client: 'pg',
    connection: { user: 'postgres', database: 'postgres', stream: () => wireProtocolStream(db), types: registryTypes } as never,
    // One session, kept open: PGlite keeps its prepared statements across a reconnect that the pg client
    // would not know of, so a new connection also starts by dropping them.
    pool: {
      min: 1,
      max: 1,
      idleTimeoutMillis: Number.MAX_SAFE_INTEGER,
      afterCreate(connection: PgConnection, done: (error?: Error, connection?: unknown) => void) {
        batchStatements(connection);
        connection.query('deallocate all', (error?: Error) => done(error, connection));
      },
    },
  });
  return knexStorage({
    kind: 'pglite',
    description: dataDir ?? 'memory',
    knex,
    async onClose() {
      await db.close();
      await release?.();
    },
  });
}

/** The directory's lock (`<dir>.lock`): one process at a time; the lock of one that died is taken over at once. */
async function lockDataDirectory(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = `${dataDir}.lock`;
  try {
    return await lockDirectory(lockPath);
  } catch (error) {
    if (error instanceof DirectoryInUseError) {
      throw new Error(
        `the data directory ${dataDir} is in use by another zaakregister process (pid ${error.owner.pid} on ${error.owner.hostname}, lock ${lockPath}). ` +
          'Stop that process, or point --database at another directory.',
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * A Duplex that looks like the socket `pg` expects and feeds whole protocol messages to PGlite.
 * Messages are framed here because `pg` may split or join them across writes.
 */
function wireProtocolStream(db: PGliteInstance): Duplex {
  let pending = Buffer.alloc(0);
  let startupSeen = false;
  let queue: Promise<unknown> = Promise.resolve();
  const stream = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const messages: Buffer[] = [];
      for (;;) {
        // The startup message has no type byte; every later message is type (1) + length (4) + body.
        const header = startupSeen ? 5 : 4;
        if (pending.length < header) break;
        const length = startupSeen ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) break;
        messages.push(pending.subarray(0, length));
        pending = pending.subarray(length);
        startupSeen = true;
      }
      if (messages.length) {
        const batch = Buffer.concat(messages);
        queue = queue
          .then(() => db.execProtocolRawStream(batch, { onRawData: (data: Uint8Array) => stream.push(Buffer.from(data)) }))
          .catch((error: unknown) => stream.destroy(error as Error));
      }
      callback();
    },
    final(callback) {
      queue.then(() => {
        stream.push(null);
        callback();
      }, callback);
    },
  });
  return Object.assign(stream, {
    setNoDelay: () => stream,
    setKeepAlive: () => stream,
    ref: () => stream,
    unref: () => stream,
    connect() {
      process.nextTick(() => stream.emit('connect'));
      return stream;
    },
  });
}
