import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ImportOptions, ImportResult, LineOutcome, LineSource } from '../plugin-types.js';
export type { ImportOptions, ImportResult, LineOutcome, LineSource };
import { DEFERRED_WRITE } from '../storage/statement-batching.js';
import { PG_UNIQUE_VIOLATION } from '../storage/types.js';
import { rewrite, UUID, type ZaakBundle } from './bundle.js';
import { takeImportLock } from './job-lock.js';
import { BATCH_SIZE, batchImporter, sha256, type ImportServices } from './import-batch.js';
export type { ImportServices };
import { BundleRefused, TABLE_ORDER, writeBundle, type Provenance } from './write-bundle.js';

export const LINE_OUTCOMES: readonly LineOutcome[] = ['imported', 'replaced', 'unchanged', 'conflict', 'failed', 'deferred'];


const emptyCounters = () => Object.fromEntries(LINE_OUTCOMES.map((o) => [o, 0])) as Record<LineOutcome, number>;

/**
 * Zaken written by one job after which the tables are analyzed: the planner then knows the rows are
 * there (before autovacuum gets to them), and an export right after the import reads its audit trails
 * by index instead of scanning the whole table for every page.
 */
const ANALYZE_AFTER = 1000;

/** Thrown inside a dry run's transaction once its bundle is written: rolls it back. */
class DryRunRollback extends Error {}

/** The settings that must match for a job to resume another's run over the same input. */
const fingerprint = (options: ImportOptions) =>
  JSON.stringify({ baseUrl: options.baseUrl, rewrite: options.rewrite ?? [], validation: options.validation ?? 'historic', onConflict: options.onConflict ?? 'skip' });

/** Checksum and number of bundles of an input, read once through. */
async function scan(lines: LineSource): Promise<{ sha: string; total: number }> {
  const hash = createHash('sha256');
  let total = 0;
  for await (const line of lines()) {
    hash.update(line).update('\n');
    if (line.trim()) total++;
  }
  return { sha: hash.digest('hex'), total };
}

/**
 * Runs an import job: each bundle in one transaction with its ledger rows, so that a job killed at
 * any moment resumes (the same input and options start where it stopped) with no bundle twice and
 * none left out, and a rerun finds its zaken `unchanged`. One job at a time per database.
 */
export async function runImport(services: ImportServices, lines: LineSource, options: ImportOptions & { baseUrl: string }): Promise<ImportResult> {
  const { storage } = services;
  const knex = storage.knex;
  const { sha, total } = await scan(lines);
  const release = await takeImportLock(storage);
  try {
    const resumable = options.jobId
      ? { id: options.jobId }
      : options.dryRun
        ? undefined
      : ((await knex('migration_job')
          .where({ source_sha256: sha })
          .whereIn('status', ['active', 'error'])
          .whereRaw("options->>'fingerprint' = ?", [fingerprint(options)])
          .orderBy('created_at', 'desc')
          .first('id')) as { id: string } | undefined);
    const jobId = resumable?.id ?? randomUUID();
    const jobOptions = { fingerprint: fingerprint(options), rewrite: options.rewrite ?? [], validation: options.validation ?? 'historic', onConflict: options.onConflict ?? 'skip', dryRun: !!options.dryRun, source: options.source ?? '', baseUrl: options.baseUrl };
    // A pause asked for while the input was read stays: the run then stops after its first batches.
    if (resumable) await knex('migration_job').where({ id: jobId }).update({ status: knex.raw("case when status = 'paused' then status else 'active' end"), options: JSON.stringify(jobOptions), source_sha256: sha, total, started_at: knex.fn.now(), finished_at: null });
    else await knex('migration_job').insert({ id: jobId, status: 'active', options: JSON.stringify(jobOptions), source_sha256: sha, total, created_by: options.actor?.clientId ?? '', started_at: knex.fn.now() });
    const settled = new Set(((await knex('migration_item').where({ job_id: jobId }).whereNot({ status: 'deferred' }).select('line')) as { line: number }[]).map((row) => row.line));
    const counters = emptyCounters();
    for (const row of (await knex('migration_item').where({ job_id: jobId }).whereNot({ status: 'deferred' }).groupBy('status').select('status', knex.raw('count(*)::int as n'))) as { status: LineOutcome; n: number }[]) counters[row.status] = row.n;
    const progress = () => options.onProgress?.({ jobId, total, done: LINE_OUTCOMES.reduce((sum, o) => sum + (o === 'deferred' ? 0 : counters[o]), 0), counters: { ...counters } });
    const provenance = { jobId, applicatieId: options.actor?.clientId ?? 'zaakregister-import', gebruikersId: options.actor?.userId ?? '' };
    const importLine = lineImporter(services, jobId, options, provenance);
    const importBatch = batchImporter(services, jobId, options, provenance, importLine);
    const nextZaakId = zaakIds(knex);
    const deferred: { line: number; text: string }[] = [];
    const count = (line: number, text: string, outcome: LineOutcome) => {
      if (outcome === 'deferred') deferred.push({ line, text });
      else counters[outcome]++;
    };
    // After each batch the counters are stored and the job's status read: a pause (from any instance) stops the run there.
    let paused = false;
    const checkpoint = async () => {
      const rows = (await knex('migration_job').where({ id: jobId }).update({ counters: JSON.stringify(counters) }).returning('status')) as { status: string }[];
      paused ||= rows[0]?.status === 'paused';
    };
    let sinceCheckpoint = 0;
    const settle = async (line: number, text: string) => {
      // Taken before anything else is awaited: ids follow the input's order, whatever finishes first.
      count(line, text, await importLine(line, text, nextZaakId()));
      progress();
      if (++sinceCheckpoint % BATCH_SIZE === 0) await checkpoint();
    };
    const untilPaused = async function* <T>(items: AsyncIterable<T>) {
      for await (const item of items) {
        if (paused) return;
        yield item;
      }
    };
    try {
      // A dry run rolls back each bundle's own transaction; otherwise bundles go in batches (see batchImporter).
      if (options.dryRun) await inPool(untilPaused(numberedLines(lines, settled)), 8, ({ line, text }) => settle(line, text));
      else
        await inPool(untilPaused(batches(numberedLines(lines, settled), BATCH_SIZE)), options.concurrency ?? 2, async (batch) => {
          for (const { line, text, outcome } of await importBatch(batch)) count(line, text, outcome);
          progress();
          await checkpoint();
        });
      if (paused) {
        // Every settled line is in the ledger; the deferred ones are tried again when the job resumes.
        counters.deferred = deferred.length;
        await knex('migration_job').where({ id: jobId }).update({ counters: JSON.stringify(counters) });
        return { jobId, total, done: LINE_OUTCOMES.reduce((sum, o) => sum + (o === 'deferred' ? 0 : counters[o]), 0), counters, status: 'paused', resumed: !!resumable };
      }
      // Deelzaken whose hoofdzaak came later in the input (or in another worker's transaction): again, while any goes in.
      for (let placed = true; deferred.length && placed; ) {
        const round = deferred.splice(0);
        for (const { line, text } of round) await settle(line, text);
        placed = deferred.length < round.length;
      }
      counters.deferred = deferred.length;
      if (!options.dryRun) await advanceIdentificatieSequence(knex);
      if (counters.imported + counters.replaced >= ANALYZE_AFTER) await knex.raw(`analyze ${[...TABLE_ORDER, 'zaak_revision', 'migration_zaak', 'migration_item'].join(', ')}`);
      await knex('migration_job').where({ id: jobId }).update({ status: 'finished', counters: JSON.stringify(counters), finished_at: knex.fn.now() });
      progress();
      return { jobId, total, done: total, counters, status: 'finished', resumed: !!resumable };
    } catch (error) {
      await knex('migration_job').where({ id: jobId }).update({ status: 'error', counters: JSON.stringify(counters) });
      throw error;
    }
  } finally {
    await release();
  }
}

/** Zaak ids from the zaak table's sequence, handed out in the order asked for, reserved 256 at a time. */
function zaakIds(knex: Knex): () => Promise<number> {
  let reserved: number[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  return () => {
    const next = chain.then(async () => {
      if (!reserved.length) {
        const { rows } = (await knex.raw("select nextval(pg_get_serial_sequence('zaak', 'id'))::int8 as id from generate_series(1, 256) order by 1")) as { rows: { id: string }[] };
        reserved = rows.map((row) => Number(row.id));
      }
      return reserved.shift()!;
    });
    chain = next;
    // Lines that write nothing (unchanged, conflict) never await theirs.
    void next.catch(() => undefined);
    return next;
  };
}

/** The non-blank lines of the input with their line numbers (from 1), leaving out those settled already. */
async function* numberedLines(lines: LineSource, settled: Set<number>): AsyncGenerator<{ line: number; text: string }> {
  let line = 0;
  for await (const text of lines()) {
    line++;
    // PGlite works in this thread: a turn of the event loop per line lets the registry answer requests (a pause) meanwhile.
    await new Promise((resolve) => setImmediate(resolve));
    if (text.trim() && !settled.has(line)) yield { line, text };
  }
}

/** The items in arrays of `size` (the last one shorter). */
async function* batches<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length) yield batch;
}

/** Runs `work` on every item, at most `size` at once, in input order of starting. */
async function inPool<T>(items: AsyncIterable<T>, size: number, work: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: unknown;
  for await (const item of items) {
    if (failure) break;
    const task = work(item).catch((error: unknown) => void (failure ??= error));
    running.add(task);
    void task.finally(() => running.delete(task));
    if (running.size >= size) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
}

/** Imports one line in a transaction of its own and records its outcome in the ledger; returns the outcome. */
function lineImporter(services: ImportServices, jobId: string, options: ImportOptions & { baseUrl: string }, provenance: Provenance) {
  const { storage } = services;
  const knex = storage.knex;
  const rules = options.rewrite ?? [];

  const record = (db: Knex | Knex.Transaction, line: number, item: { zaakUuid?: string; identificatie?: string; sha: string; status: LineOutcome; message?: string }) =>
    db('migration_item')
      .insert({ job_id: jobId, line, zaak_uuid: item.zaakUuid ?? null, identificatie: (item.identificatie ?? '').slice(0, 40), content_sha256: item.sha, status: item.status, message: item.message ?? '' })
      .onConflict(['job_id', 'line'])
      .merge();

  return async (line: number, text: string, zaakIdOf: Promise<number>): Promise<LineOutcome> => {
    const sha = sha256(text.trim());
    let bundle: ZaakBundle;
    try {
      bundle = JSON.parse(text) as ZaakBundle;
      if (!bundle || typeof bundle !== 'object' || !bundle.zaak || typeof bundle.zaak !== 'object') throw new Error('a bundle is an object with a "zaak"');
      if (typeof bundle.zaak.uuid !== 'string' || !UUID.test(bundle.zaak.uuid)) throw new Error('zaak.uuid is no uuid');
    } catch (error) {
      await record(knex, line, { sha, status: 'failed', message: `line ${line}: ${(error as Error).message}` });
      return 'failed';
    }
    const zaakUuid = String(bundle.zaak.uuid).toLowerCase();
    const identificatie = String(bundle.zaak.identificatie ?? '');
    const item = { zaakUuid, identificatie, sha };
    const { rows } = (await knex.raw('select (select content_sha256 from migration_zaak where zaak_uuid = ?) as sha, exists (select 1 from zaak where uuid = ?) as stored', [zaakUuid, zaakUuid])) as {
      rows: { sha: string | null; stored: boolean }[];
    };
    const ledger = rows[0].sha === null ? undefined : { content_sha256: rows[0].sha };
    if (ledger?.content_sha256 === sha) {
      await record(knex, line, { ...item, status: 'unchanged' });
      return 'unchanged';
    }
    const exists = !!ledger || rows[0].stored;
    if (exists && options.onConflict !== 'replace') {
      const message = ledger ? 'this zaak was imported from another version of the line' : 'a zaak with this uuid exists and was not imported';
      await record(knex, line, { ...item, status: 'conflict', message });
      return 'conflict';
    }
    const rewritten = rewrite(bundle, rules);
    if (options.validation === 'strict' && !(await services.zaaktypeKnown(String(rewritten.zaak.zaaktype)))) {
      await record(knex, line, { ...item, status: 'failed', message: `zaaktype ${String(rewritten.zaak.zaaktype)} is not in the catalog` });
      return 'failed';
    }
    const outcome: LineOutcome = exists ? 'replaced' : 'imported';
    try {
      await storage.transaction(async (tx) => {
        const deelzaken = exists ? await detachDeelzaken(tx, zaakUuid) : [];
        if (exists) await tx('zaak').where({ uuid: zaakUuid }).delete();
        const zaakId = await writeBundle(tx, rewritten, options.baseUrl, provenance, await zaakIdOf);
        if (deelzaken.length) await tx('zaak').whereIn('id', deelzaken).update({ hoofdzaak_id: zaakId });
        const zaakUrl = `${options.baseUrl}/zaken/${zaakUuid}`;
        const zaak = { ...rewritten.zaak, url: zaakUrl };
        await services.announce({ tx, baseUrl: options.baseUrl, resource: 'zaak', action: 'create', resourceUrl: zaakUrl, hoofdObject: zaakUrl, zaak, before: null, after: zaak, source: 'import' });
        if (options.dryRun) {
          // The held writes go first: a dry run must meet what the database would refuse.
          await tx.raw('select 1');
          throw new DryRunRollback();
        }
        // The zaak's ledger row and the line's outcome in one statement, travelling with the COMMIT.
        await tx.raw(
          `with ledger as (
             insert into migration_zaak (zaak_uuid, content_sha256, job_id, line) values (?, ?, ?, ?)
             on conflict (zaak_uuid) do update set content_sha256 = excluded.content_sha256, job_id = excluded.job_id, line = excluded.line
           )
           insert into migration_item (job_id, line, zaak_uuid, identificatie, content_sha256, status) values (?, ?, ?, ?, ?, ?)
           on conflict (job_id, line) do update set status = excluded.status, message = '', at = now()`,
          [zaakUuid, sha, jobId, line, jobId, line, zaakUuid, identificatie.slice(0, 40), sha, outcome],
        ).options(DEFERRED_WRITE);
      });
    } catch (error) {
      if (error instanceof DryRunRollback) {
        await record(knex, line, { ...item, status: outcome, message: 'dry run: validated, not written' });
        return outcome;
      }
      const refused = refusal(error);
      if (refused.outcome === 'deferred') {
        await record(knex, line, { ...item, status: 'deferred', message: refused.message });
        return 'deferred';
      }
      await record(knex, line, { ...item, status: refused.outcome, message: refused.message });
      return refused.outcome;
    }
    return outcome;
  };
}

/** The deelzaken of a zaak that is replaced, let go of it for the moment (a delete would take them along). */
async function detachDeelzaken(tx: Knex.Transaction, zaakUuid: string): Promise<number[]> {
  const rows = (await tx('zaak').whereIn('hoofdzaak_id', tx('zaak').where({ uuid: zaakUuid }).select('id')).update({ hoofdzaak_id: null }).returning('id')) as { id: number }[];
  return rows.map((row) => Number(row.id));
}

/** What a failed bundle write means: its own refusal, a uniqueness conflict, or a value the database refused. */
function refusal(error: unknown): { outcome: 'deferred' | 'conflict' | 'failed'; message: string } {
  if (error instanceof BundleRefused) return { outcome: error.outcome, message: error.message };
  const e = error as { code?: string; constraint?: string; detail?: string; message?: string };
  if (e.code === PG_UNIQUE_VIOLATION) return { outcome: 'conflict', message: `already in this registry (${e.constraint ?? 'unique'}): ${e.detail ?? e.message ?? ''}` };
  if (typeof e.code === 'string' && /^2[23]/.test(e.code)) return { outcome: 'failed', message: `refused by the database (${e.code}): ${e.message ?? ''}` };
  throw error;
}

/**
 * Moves `zaak_identificatie_seq` past the highest imported identificatie of this year's generated
 * form (`ZAAK-<year>-<10 digits>`): new zaken then need not skip the imported numbers one by one.
 */
export async function advanceIdentificatieSequence(knex: Knex): Promise<void> {
  const year = new Date().getUTCFullYear();
  await knex.raw(
    `select setval('zaak_identificatie_seq', n) from (
       select max(substring(identificatie from ?)::bigint) as n from zaak where identificatie like ?
     ) as highest where n > (select last_value from zaak_identificatie_seq)`,
    [`^ZAAK-${year}-(\\d{10})$`, `ZAAK-${year}-%`],
  );
}
