import { createHash } from 'node:crypto';
import { channel } from 'node:diagnostics_channel';
import pg from 'pg';
import { isStalePlan } from './types.js';

/**
 * Fewer round trips per transaction, on each pg connection of a storage. node-postgres sends one
 * statement and waits for its answer before the next, so a write's `BEGIN`, statements and `COMMIT`
 * each cost a round trip. Two are saved without changing what runs:
 *
 * - `BEGIN` is held back and travels with the transaction's first statement (a transaction that
 *   sends nothing sends no `BEGIN` and no `COMMIT` either);
 * - statements sent with `.options(DEFERRED_WRITE)` (writes whose result nobody reads: audit rows,
 *   outbox rows, a zaak whose row is known before it is stored) are answered at once and travel
 *   with the transaction's next statement or `COMMIT`. Deferred inserts into the same table and
 *   columns that follow each other (the outbox rows of several plugins for one change) travel as one
 *   multi-row insert: the server parses, plans and runs one statement for them.
 *
 * Statements that travel together go as one simple-protocol query, their values written as literals
 * the way pg would send them as parameters (untyped text, so the server infers the same types). An
 * error in any of them fails the query that carried them: the transaction is aborted and rolls back.
 * A prepared statement (named, or `PREPARED`) that travels with `BEGIN` goes as `EXECUTE`, keeping
 * its plan; once that has worked on the connection, also one that travels with deferred writes.
 */

/**
 * knex query options (`builder.options(DEFERRED_WRITE)`) for a write in a transaction whose result is
 * not read (an audit or outbox row, a plugin's bookkeeping column): on PostgreSQL and PGlite it is
 * answered at once, with no rows, and travels with the transaction's next statement or its `COMMIT`,
 * saving the round trip. An error in it fails that statement (or the `COMMIT`), and the transaction
 * rolls back. Outside a transaction it is sent as it is.
 */
export const DEFERRED_WRITE = Object.freeze({ deferredWrite: true });

/**
 * knex query options (`builder.options(PREPARED)`) for a statement to prepare once per connection and
 * plan once, named after its exact text: for statements whose text takes few shapes (an insert by its
 * columns), where naming them by hand could give one name two texts.
 */
export const PREPARED = Object.freeze({ prepare: true as const });

/**
 * `PREPARED`, for a list page's statement: named from a budget of its own, so pages (per application
 * up to 11 texts of `GET /zaken`, and of each record list its pages and its count) cannot use up the
 * names of the inserts and reads.
 */
export const PREPARED_PAGE = Object.freeze({ prepare: 'page' as const });

/** Which budget a prepared statement's name comes from. */
export type PreparedBudget = 'statement' | 'page';

/** Names given to `PREPARED` statements, by their text, per budget. */
const preparedNames: Record<PreparedBudget, Map<string, string>> = { statement: new Map(), page: new Map() };
/**
 * Beyond this many texts (an insert takes one per set of columns a client sends, list pages a few
 * per application and list), the rest of a budget go unnamed, planned on each use: each name can
 * become a plan kept in every connection on the server.
 */
const MAX_PREPARED_NAMES = 200;

/** The name of a `PREPARED` statement: a hash of its text, so also another process's name is of the same text. */
export function preparedName(text: string, budget: PreparedBudget = 'statement'): string | undefined {
  const names = preparedNames[budget];
  let name = names.get(text);
  if (!name && names.size < MAX_PREPARED_NAMES) {
    names.set(text, (name = `zaakregister_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  }
  return name;
}

/** Every query a connection sends, as `{ text }`: what a round-trip count or a trace subscribes to. */
export const roundTripChannel = channel('zaakregister:database:query');

type Callback = (error: Error | null, result?: unknown) => void;

interface QueryConfig {
  text: string;
  values?: unknown[];
  /** A named (prepared) statement: pg parses it once per connection. */
  name?: string;
  prepare?: boolean | 'page';
  deferredWrite?: boolean;
}

/** The part of a pg `Client` this module uses. */
export interface PgConnection {
  query(config: unknown, callback?: unknown): unknown;
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b[^;]*;?\s*$/i;
const COMMIT = /^\s*(COMMIT|END)\s*;?\s*$/i;
const ROLLBACK = /^\s*(ROLLBACK|ABORT)\s*;?\s*$/i;
const CONFIG_KEYS = new Set(['text', 'values', 'name', 'prepare', 'deferredWrite']);
/**
 * An insert of bound values only (`insert into "t" ("a", "b") values ($1, $2), ($3, $4)`, as knex
 * writes it): its head, up to `values `, and its rows. Another deferred insert with the same head can
 * add its rows to it. A quoted name with a `"` in it, a schema, an expression, `on conflict` or
 * `returning` does not match: such a statement travels as it is.
 */
const PLAIN_INSERT = /^(insert into "[^"]+" \("[^"]+"(?:, "[^"]+")*\) values )(\((?:\$\d+|DEFAULT)(?:, (?:\$\d+|DEFAULT))*\)(?:, \((?:\$\d+|DEFAULT)(?:, (?:\$\d+|DEFAULT))*\))*)$/;

/** SQLSTATE 26000: `EXECUTE` of a statement the server does not know. */
const INVALID_STATEMENT_NAME = '26000';

/**
 * A COMMIT that PostgreSQL answered with ROLLBACK: a statement of the transaction failed and its
 * error was caught (a deferred write's lands on the statement after it). Nothing was stored, so it
 * must not look committed.
 */
function rolledBack(text: string, result: unknown): Error | null {
  if (!COMMIT.test(text) || (result as { command?: string } | undefined)?.command !== 'ROLLBACK') return null;
  return Object.assign(new Error('the transaction was rolled back at COMMIT: one of its statements had failed'), { code: '25P02' });
}

/** What pg would answer for a statement that was not (yet) sent. */
const unsent = (text: string) => ({ command: /^\s*(\w+)/.exec(text)?.[1].toUpperCase() ?? '', rowCount: null, rows: [], fields: [] });

/** knex calls `query(config, callback)` with a plain config; anything else (a stream, a row mode) goes as it is. */
function isPlain(config: unknown, callback: unknown): config is QueryConfig {
  if (typeof callback !== 'function' || !config || typeof config !== 'object') return false;
  for (const key of Object.keys(config)) if (!CONFIG_KEYS.has(key)) return false;
  return typeof (config as QueryConfig).text === 'string';
}

/**
 * Holds back `BEGIN` and deferred writes on `connection` (a pg `Client`), as described above. With
 * `named: false` every statement goes unnamed (parsed and planned anew each time): for a pooler that
 * hands each transaction another server connection and does not carry prepared statements across
 * (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`).
 */
export function batchStatements(connection: PgConnection, { named: naming = true }: { named?: boolean } = {}): void {
  const send = connection.query.bind(connection) as (config: unknown, callback?: unknown) => unknown;
  let inTransaction = false;
  /** The transaction's `BEGIN` while none of its statements has been sent. */
  let heldBegin: string | undefined;
  /** Deferred writes (as literal SQL) waiting to travel with the next statement. */
  let waiting: string[] = [];
  /** The last of `waiting` when it is a plain insert: its head, so that the next one with that head joins it. */
  let lastInsert: { list: string[]; head: string } | undefined;
  /** Named statements pg has prepared on this connection: with a held `BEGIN` they travel as `EXECUTE name(...)`. */
  const prepared = new Map<string, string>();
  /** Until `EXECUTE` of one fails: a pooler such as PgBouncer renames the statements it prepares on the server. */
  let executeWorks = true;
  /**
   * Once an `EXECUTE` has run on this connection (with a held `BEGIN`, where a failure can start
   * over): from then on a prepared statement also travels with writes held in the middle of a
   * transaction, where a failed `EXECUTE` could not be taken back.
   */
  let executeProven = false;
  /**
   * The name each statement whose plan went stale (a migration ran) is prepared under now on this
   * connection: pg keeps the old name parsed, and the server the old statement, for the connection's life.
   */
  const renamed = new Map<string, string>();
  let renames = 0;
  const retire = (name: string) => {
    prepared.delete(renamed.get(name) ?? name);
    renamed.set(name, `${name}_${++renames}`);
  };

  const publish = (text: string) => {
    if (roundTripChannel.hasSubscribers) roundTripChannel.publish({ text });
  };
  const answerLater = (callback: Callback, text: string) => process.nextTick(callback, null, unsent(text));
  /** Holds a deferred write: a plain insert right after one with the same head adds its rows to that one. */
  const hold = (text: string, values: unknown[] | undefined) => {
    const insert = values?.length ? PLAIN_INSERT.exec(text) : null;
    const last = waiting.length - 1;
    if (insert && lastInsert?.list === waiting && lastInsert.head === insert[1] && last >= 0) {
      waiting[last] += `, ${withLiterals(insert[2], values!)}`;
      return;
    }
    waiting.push(values?.length ? withLiterals(text, values) : text);
    lastInsert = insert ? { list: waiting, head: insert[1] } : undefined;
  };
  const holding = () => heldBegin !== undefined || waiting.length > 0;
  /** Sends what is held, then `statement`, as one query; the callback gets the result(s) of `statement` alone. */
  const sendHeldWith = (statement: string | undefined, callback: Callback) => {
    const held = [...(heldBegin === undefined ? [] : [heldBegin]), ...waiting];
    heldBegin = undefined;
    waiting = [];
    // On lines of their own: a statement that ends in a `--` comment does not swallow the separator.
    const combined = (statement === undefined ? held : [...held, statement]).join('\n;\n');
    publish(combined);
    send({ text: combined }, (error: Error | null, results: unknown) => {
      if (!Array.isArray(results)) return callback(error, results);
      const own = results.slice(held.length);
      callback(error, own.length === 1 ? own[0] : own);
    });
  };
  /**
   * Sends `config` as it is, after what is held and only if that succeeded: had the held part been
   * refused whole (a syntax error, say), `BEGIN` would not have run and the query would autocommit.
   */
  const sendAfterHeld = (config: unknown, callback: unknown) => {
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | undefined)?.text;
    const sendIt = () => {
      if (typeof text === 'string') publish(text);
      return send(config, callback);
    };
    if (!holding()) return sendIt();
    if (typeof callback !== 'function') {
      // pg's promise API, or a stream (pg answers it with itself): sent once what is held has been
      // answered, never queued behind it in pg (a queue pg 9 drops). Nothing is held meanwhile: a
      // caller that sent another query without waiting for this one (knex never does) could overtake it.
      if (typeof (config as { submit?: unknown } | undefined)?.submit !== 'function') {
        return new Promise((resolve, reject) => sendHeldWith(undefined, (error) => (error ? reject(error) : resolve(sendIt()))));
      }
      // A stream cannot be failed from here: BEGIN goes first on its own, so it runs in the transaction
      // whatever happens to the held writes (their failure aborts it, failing the stream too).
      const begin = heldBegin;
      const writes = waiting;
      heldBegin = undefined;
      waiting = [];
      const thenWrites = () => {
        if (!writes.length) return void sendIt();
        const combined = writes.join('\n;\n');
        publish(combined);
        send({ text: combined }, () => void sendIt());
      };
      if (begin === undefined) thenWrites();
      else {
        publish(begin);
        send({ text: begin }, thenWrites);
      }
      return config;
    }
    sendHeldWith(undefined, (error) => (error ? (callback as Callback)(error) : sendIt()));
    return undefined;
  };

  /** A named statement sent as it is, after what is held; pg has prepared it once it ran. */
  const sendNamed = (config: QueryConfig, callback: Callback) =>
    sendAfterHeld(config, (error: Error | null, result: unknown) => {
      if (!error) prepared.set(config.name!, config.text);
      callback(error, result);
    });
  /** A prepared statement as `EXECUTE` with the held `BEGIN` (and writes): its plan is kept, a round trip saved. */
  const executeWithHeld = (config: QueryConfig, callback: Callback) => {
    const held = { begin: heldBegin, waiting };
    sendHeldWith(execute(config.name!, config.values), (error, result) => {
      if (!error) executeProven = true;
      if ((error as { code?: string } | null)?.code !== INVALID_STATEMENT_NAME) return callback(error, result);
      // Nothing but what was held has run in the transaction: it starts over, sending the statement as it is.
      executeWorks = false;
      startOver(held, () => sendNamed(config, callback));
    });
  };
  /** Rolls back a transaction of which only what was `held` ran, holds that again, then calls `next`. */
  const startOver = (held: { begin: string | undefined; waiting: string[] }, next: () => void) => {
    publish('ROLLBACK');
    send({ text: 'ROLLBACK' }, () => {
      heldBegin = held.begin;
      waiting = held.waiting;
      next();
    });
  };

  connection.query = function query(given: unknown, callback?: unknown): unknown {
    if (!isPlain(given, callback)) return sendAfterHeld(given, callback);
    const options: QueryConfig = naming || (given.name === undefined && !given.prepare) ? given : { ...given, name: undefined, prepare: undefined };
    const named = options.prepare ? preparedName(options.text, options.prepare === 'page' ? 'page' : 'statement') : options.name;
    const config = named === options.name && !renamed.has(named!) ? options : { ...options, name: renamed.get(named!) ?? named };
    const done = callback as Callback;
    const { text, values } = config;
    if (!inTransaction && BEGIN.test(text) && !values?.length) {
      inTransaction = true;
      heldBegin = text.trim().replace(/;$/, '');
      return answerLater(done, text);
    }
    if (inTransaction && (COMMIT.test(text) || ROLLBACK.test(text))) {
      inTransaction = false;
      if (ROLLBACK.test(text)) waiting = [];
      if (heldBegin !== undefined && !waiting.length) {
        // Nothing of the transaction reached the database: there is nothing to end.
        heldBegin = undefined;
        return answerLater(done, text);
      }
      if (!holding()) {
        publish(text);
        return send(config, (error: Error | null, result: unknown) => done(error ?? rolledBack(text, result), result));
      }
      // A statement that fails before the COMMIT it travels with leaves the transaction open and
      // aborted, where a failed COMMIT alone would have ended it: end it, then report the failure.
      return sendHeldWith(text, (error, result) => {
        if (!error) return done(rolledBack(text, result), result);
        publish('ROLLBACK');
        send({ text: 'ROLLBACK' }, () => done(error));
      });
    }
    if (inTransaction && config.deferredWrite) {
      hold(text, values);
      return answerLater(done, text);
    }
    const { name } = config;
    if (name) {
      // A statement that starts its transaction (or runs without one) can run again if its plan went stale.
      const held = heldBegin === undefined ? undefined : { begin: heldBegin, waiting };
      const alone = !inTransaction;
      const answer: Callback = (error, result) => {
        if (!isStalePlan(error)) return done(error, result);
        retire(named!);
        const again = { ...config, name: renamed.get(named!) };
        if (alone) return sendNamed(again, done);
        if (held) return startOver(held, () => sendNamed(again, done));
        // It aborted a transaction that had already run other statements: the caller's to retry.
        done(error, result);
      };
      // Only for the text pg prepared under the name: another text is pg's error to raise.
      const known = prepared.get(name) === text;
      if (held && executeWorks && known) return executeWithHeld(config, answer);
      if (waiting.length && executeWorks && executeProven && known) return sendHeldWith(execute(config.name!, config.values), answer);
      // Its plan is worth more than the round trip what is held then takes on its own.
      if (holding() || !known) return sendNamed(config, answer);
      publish(text);
      return send(config, answer);
    }
    if (!holding()) {
      publish(text);
      return send(config, callback);
    }
    return sendHeldWith(values?.length ? withLiterals(text, values) : text, done);
  };
}

/** `EXECUTE` of a prepared statement, its values as literals. */
const execute = (name: string, values: unknown[] | undefined) => `EXECUTE ${pg.escapeIdentifier(name)}${values?.length ? `(${values.map(literal).join(', ')})` : ''}`;

/** pg's own conversion of a parameter to the text it sends (untyped in @types/pg). */
const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): string | Buffer | null } }).utils;

/** A value as pg would send it as a parameter, written as an SQL literal. */
function literal(value: unknown): string {
  const prepared = prepareValue(value);
  if (prepared === null) return 'NULL';
  return quote(Buffer.isBuffer(prepared) ? `\\x${prepared.toString('hex')}` : prepared);
}

/** What `pg.escapeLiteral` writes (quotes doubled; with a backslash, backslashes doubled in an E'' string), without its loop per character. */
function quote(text: string): string {
  const quoted = text.includes("'") ? text.replace(/'/g, "''") : text;
  return text.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

/**
 * `text` with its placeholders (`$1`, ...) replaced by the literals of `values`. Quoted strings and
 * identifiers, dollar-quoted bodies and comments are copied as they are: a `$1` in them is no placeholder.
 */
export function withLiterals(text: string, values: readonly unknown[]): string {
  let out = '';
  let i = 0;
  const copyUntil = (end: number) => {
    out += text.slice(i, end);
    i = end;
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "'" || c === '"') {
      const escapes = c === "'" && /[eE]/.test(text[i - 1] ?? '') && !/\w/.test(text[i - 2] ?? '');
      let j = i + 1;
      while (j < text.length) {
        if (escapes && text[j] === '\\') j += 2;
        else if (text[j] === c && text[j + 1] === c) j += 2;
        else if (text[j] === c) break;
        else j++;
      }
      copyUntil(Math.min(j + 1, text.length));
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      copyUntil(end < 0 ? text.length : end);
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      copyUntil(end < 0 ? text.length : end + 2);
    } else if (c === '$' && /\d/.test(next ?? '') && !/\w/.test(text[i - 1] ?? '')) {
      const digits = /^\d+/.exec(text.slice(i + 1))![0];
      const index = Number(digits) - 1;
      if (index < 0 || index >= values.length) throw new Error(`statement has placeholder $${digits} but ${values.length} values`);
      out += literal(values[index]);
      i += 1 + digits.length;
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i))?.[0];
      if (tag && !/\w/.test(text[i - 1] ?? '')) {
        const end = text.indexOf(tag, i + tag.length);
        copyUntil(end < 0 ? text.length : end + tag.length);
      } else {
        out += c;
        i++;
      }
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
