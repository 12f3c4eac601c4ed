import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { ImportOptions, LineOutcome, ResourceChange } from '../plugin-types.js';
import type { Storage } from '../storage/types.js';
import { rewrite, UUID, uuidOfUrl, type ZaakBundle } from './bundle.js';
import { BundleRefused, bundleRows, linkedCounts, reserveIds, TABLE_ORDER, type Provenance } from './write-bundle.js';

/** What an import needs of the registry. */
export interface ImportServices {
  storage: Storage;
  /** Announces an imported zaak to `resourceChanged` hooks (source `import`), in its transaction. */
  announce(change: ResourceChange): Promise<void>;
  /** Whether the catalog knows a zaaktype (strict validation). */
  zaaktypeKnown(url: string): Promise<boolean>;
}

/** Bundles read and written together: one ledger check, one id reservation and one transaction with one insert per table. */
export const BATCH_SIZE = 100;

/** Parameters per insert statement: PostgreSQL takes at most 65,535. */
const MAX_PARAMETERS = 30_000;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A line of the input as a batch sees it. */
export interface BatchLine {
  line: number;
  text: string;
}

/** One line's ledger row: what became of it. */
interface Item {
  line: number;
  zaakUuid?: string;
  identificatie?: string;
  sha: string;
  status: LineOutcome;
  message?: string;
}

/** A line's bundle parsed, or why it is none. */
function parse(line: number, text: string): { sha: string; bundle?: ZaakBundle; error?: string } {
  const sha = sha256(text.trim());
  try {
    const bundle = JSON.parse(text) as ZaakBundle;
    if (!bundle || typeof bundle !== 'object' || !bundle.zaak || typeof bundle.zaak !== 'object') throw new Error('a bundle is an object with a "zaak"');
    if (typeof bundle.zaak.uuid !== 'string' || !UUID.test(bundle.zaak.uuid)) throw new Error('zaak.uuid is no uuid');
    return { sha, bundle };
  } catch (error) {
    return { sha, error: `line ${line}: ${(error as Error).message}` };
  }
}

/** The ledger rows of some lines, one statement (kept as they are when the same job dealt with them before). */
export function recordItems(db: Knex | Knex.Transaction, jobId: string, items: Item[]) {
  const rows = items.map((item) => ({ job_id: jobId, line: item.line, zaak_uuid: item.zaakUuid ?? null, identificatie: (item.identificatie ?? '').slice(0, 40), content_sha256: item.sha, status: item.status, message: item.message ?? '' }));
  return db('migration_item').insert(rows).onConflict(['job_id', 'line']).merge();
}

/** A statement with `?` placeholders and its values. */
type Write = { sql: string; bindings: readonly unknown[] };

/**
 * Runs writes as few statements as the parameter limit allows: data-modifying `WITH` clauses, in their
 * order, one round trip for a batch instead of one per table. Foreign keys are checked at the end of
 * the statement, so a clause may insert rows that refer to an earlier clause's.
 */
async function writeTogether(tx: Knex.Transaction, writes: Write[]): Promise<void> {
  let clauses: string[] = [];
  let bindings: unknown[] = [];
  const flush = async () => {
    if (clauses.length) await tx.raw(`with ${clauses.map((sql, i) => `w${i} as (${sql})`).join(', ')} select 1`, bindings as Knex.RawBinding[]);
    clauses = [];
    bindings = [];
  };
  for (const write of writes) {
    if (bindings.length + write.bindings.length > MAX_PARAMETERS) await flush();
    clauses.push(write.sql);
    bindings.push(...write.bindings);
  }
  await flush();
}

/** The json and jsonb columns of each table: their values are JSON text already. */
export async function jsonColumns(db: Knex): Promise<Map<string, Set<string>>> {
  const rows = (await db.raw("select table_name, column_name from information_schema.columns where table_schema = current_schema() and data_type in ('json', 'jsonb')")) as {
    rows: { table_name: string; column_name: string }[];
  };
  const out = new Map<string, Set<string>>();
  for (const row of rows.rows) out.set(row.table_name, (out.get(row.table_name) ?? new Set()).add(row.column_name));
  return out;
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The inserts of `rows` into `table`, in their order: each run of rows with the same columns as one
 * JSON parameter (`jsonb_populate_recordset` with the table's own row type). One value to bind and a
 * plan with no long `VALUES` list: a row costs the database a fraction of what it costs as parameters.
 */
function inserts(table: string, rows: Record<string, unknown>[], json: Set<string>): Write[] {
  const out: Write[] = [];
  let run: Record<string, unknown>[] = [];
  let keys: string[] = [];
  const flush = () => {
    if (!run.length) return;
    const text = run
      .map((row) => `{${keys.map((key) => {
        const value = row[key];
        return `${JSON.stringify(key)}:${value === null || value === undefined ? 'null' : json.has(key) && typeof value === 'string' ? value : JSON.stringify(value)}`;
      }).join(',')}}`)
      .join(',');
    const columns = keys.map(quoted).join(', ');
    out.push({ sql: `insert into ${quoted(table)} (${columns}) select ${columns} from jsonb_populate_recordset(null::${quoted(table)}, ?::jsonb)`, bindings: [`[${text}]`] });
    run = [];
  };
  for (const row of rows) {
    const rowKeys = Object.keys(row);
    if (rowKeys.length !== keys.length || rowKeys.some((key, i) => key !== keys[i])) {
      flush();
      keys = rowKeys;
    }
    run.push(row);
  }
  flush();
  return out;
}

/**
 * Imports a batch of lines: one ledger check for all of them, then every bundle to write in one
 * transaction, one insert per table, with their ledger rows. Outcomes that need no write (unchanged,
 * conflict, failed, deferred) are recorded in the same statement as the written ones. When the
 * database refuses the transaction (a uniqueness conflict, a value out of range), the batch's bundles
 * are written again one by one with `importLine`, each in its own transaction: a refused bundle fails
 * alone, and nothing of it stays. Bundles that replace a stored zaak go one by one as well.
 */
export function batchImporter(
  services: ImportServices,
  jobId: string,
  options: ImportOptions & { baseUrl: string },
  provenance: Provenance,
  importLine: (line: number, text: string, zaakId: Promise<number>) => Promise<LineOutcome>,
) {
  const { storage } = services;
  const knex = storage.knex;
  const rules = options.rewrite ?? [];
  const known = new Map<string, Promise<boolean>>();
  const zaaktypeKnown = (url: string) => {
    if (!known.has(url)) known.set(url, services.zaaktypeKnown(url));
    return known.get(url)!;
  };
  let columnsOfJson: Promise<Map<string, Set<string>>> | undefined;
  // Ids are reserved batch after batch in input order (whichever batch is ready first): lists ordered by id keep the input's order.
  let reservations: Promise<unknown> = Promise.resolve();

  return async (batch: BatchLine[]): Promise<{ line: number; text: string; outcome: LineOutcome }[]> => {
    const parsed = batch.map(({ line, text }) => ({ line, text, ...parse(line, text) }));
    const bundles = parsed.filter((p) => p.bundle);
    const uuids = bundles.map((p) => String(p.bundle!.zaak.uuid).toLowerCase());
    const hoofdzaken = bundles.flatMap((p) => uuidOfUrl(rewrite(p.bundle!.zaak.hoofdzaak, rules)) ?? []);
    const ledgerRead = Promise.all([
      uuids.length ? (knex('migration_zaak').whereIn('zaak_uuid', uuids).select('zaak_uuid', 'content_sha256') as Promise<{ zaak_uuid: string; content_sha256: string }[]>) : [],
      uuids.length ? (knex('zaak').whereIn('uuid', [...new Set([...uuids, ...hoofdzaken])]).select('id', 'uuid') as Promise<{ id: string | number; uuid: string }[]>) : [],
    ]);
    let counted: (counts: { zaak: number; rol: number; status: number }) => void = () => undefined;
    const counts = new Promise<{ zaak: number; rol: number; status: number }>((resolve) => (counted = resolve));
    const reserved = reservations.then(() => counts).then((c) => (c.zaak ? reserveIds(knex, c) : { zaak: [], rol: [], status: [] }));
    reservations = reserved.catch(() => undefined);
    let ledger: Map<string, string>;
    let stored: Map<string, number>;
    try {
      const [ledgerRows, zaakRows] = await ledgerRead;
      ledger = new Map(ledgerRows.map((row) => [String(row.zaak_uuid), row.content_sha256]));
      stored = new Map(zaakRows.map((row) => [String(row.uuid), Number(row.id)]));
    } catch (error) {
      counted({ zaak: 0, rol: 0, status: 0 });
      throw error;
    }

    const items: Item[] = [];
    const outcomes = new Map<number, LineOutcome>();
    const settle = (item: Item) => {
      items.push(item);
      outcomes.set(item.line, item.status);
    };
    const toWrite: { line: number; text: string; item: Omit<Item, 'status'>; bundle: ZaakBundle }[] = [];
    const oneByOne: BatchLine[] = [];
    for (const { line, text, sha, bundle, error } of parsed) {
      if (!bundle) {
        settle({ line, sha, status: 'failed', message: error });
        continue;
      }
      const zaakUuid = String(bundle.zaak.uuid).toLowerCase();
      const item = { line, sha, zaakUuid, identificatie: String(bundle.zaak.identificatie ?? '') };
      const before = ledger.get(zaakUuid);
      if (before === sha) settle({ ...item, status: 'unchanged' });
      else if (before !== undefined || stored.has(zaakUuid)) {
        if (options.onConflict === 'replace') oneByOne.push({ line, text });
        else settle({ ...item, status: 'conflict', message: before !== undefined ? 'this zaak was imported from another version of the line' : 'a zaak with this uuid exists and was not imported' });
      } else {
        const rewritten = rewrite(bundle, rules);
        if (options.validation === 'strict' && !(await zaaktypeKnown(String(rewritten.zaak.zaaktype)))) settle({ ...item, status: 'failed', message: `zaaktype ${String(rewritten.zaak.zaaktype)} is not in the catalog` });
        else toWrite.push({ line, text, item, bundle: rewritten });
      }
    }
    counted(toWrite.reduce((sum, { bundle }) => ({ zaak: sum.zaak + 1, rol: sum.rol + linkedCounts(bundle).rol, status: sum.status + linkedCounts(bundle).status }), { zaak: 0, rol: 0, status: 0 }));
    const ids = await reserved;

    // The rows of each bundle, in input order; a deelzaak whose hoofdzaak is neither stored nor earlier in the batch waits.
    const written: { line: number; text: string; item: Item; zaakId: number; zaak: ZaakBundle['zaak'] }[] = [];
    const rowsByTable = new Map<string, Record<string, unknown>[]>(TABLE_ORDER.map((table) => [table, []]));
    const inBatch = new Map<string, number>();
    let rolOffset = 0;
    let statusOffset = 0;
    toWrite.forEach(({ line, text, item, bundle }, i) => {
      const zaakId = ids.zaak[i];
      // Each bundle takes the ids of its own rollen and statussen, whether it is written or refused.
      let nextRol = rolOffset;
      let nextStatus = statusOffset;
      rolOffset += linkedCounts(bundle).rol;
      statusOffset += linkedCounts(bundle).status;
      try {
        let hoofdzaakId: number | null = null;
        if (bundle.zaak.hoofdzaak) {
          const hoofdzaak = uuidOfUrl(bundle.zaak.hoofdzaak) ?? '';
          hoofdzaakId = inBatch.get(hoofdzaak) ?? stored.get(hoofdzaak) ?? null;
          if (hoofdzaakId === null) throw new BundleRefused('deferred', `hoofdzaak ${String(bundle.zaak.hoofdzaak)} is not in this registry (yet)`);
        }
        const { zaak, tables } = bundleRows(bundle, options.baseUrl, provenance, zaakId, hoofdzaakId, (kind) => (kind === 'rol' ? ids.rol[nextRol++] : ids.status[nextStatus++]));
        rowsByTable.get('zaak')!.push(zaak);
        for (const [table, rows] of tables) rowsByTable.get(table)!.push(...rows);
        inBatch.set(item.zaakUuid!, zaakId);
        written.push({ line, text, item: { ...item, status: 'imported' }, zaakId, zaak: bundle.zaak });
      } catch (error) {
        if (!(error instanceof BundleRefused)) throw error;
        settle({ ...item, status: error.outcome, message: error.message });
      }
    });

    // Read before the transaction: a storage of one connection (PGlite) has none to spare inside it.
    const json = written.length ? await (columnsOfJson ??= jsonColumns(knex)) : new Map<string, Set<string>>();
    try {
      await storage.transaction(async (tx) => {
        const writes = [...rowsByTable].flatMap(([table, rows]) => (rows.length ? inserts(table, rows, json.get(table) ?? new Set()) : []));
        if (written.length) {
          const ledgerRows = written.map(({ line, item }) => ({ zaak_uuid: item.zaakUuid, content_sha256: item.sha, job_id: jobId, line }));
          writes.push(tx('migration_zaak').insert(ledgerRows).onConflict('zaak_uuid').merge().toSQL());
        }
        const all = [...items, ...written.map((w) => w.item)];
        if (all.length) writes.push(recordItems(tx, jobId, all).toSQL());
        await writeTogether(tx, writes);
        for (const { zaak } of written) {
          const zaakUrl = `${options.baseUrl}/zaken/${String(zaak.uuid).toLowerCase()}`;
          const after = { ...zaak, url: zaakUrl };
          await services.announce({ tx, baseUrl: options.baseUrl, resource: 'zaak', action: 'create', resourceUrl: zaakUrl, hoofdObject: zaakUrl, zaak: after, before: null, after, source: 'import' });
        }
      });
      for (const { line, item } of written) outcomes.set(line, item.status);
    } catch (error) {
      if (!written.length) throw error;
      // Refused by the database: each bundle again in a transaction of its own, so that only the refused one fails.
      if (items.length) await recordItems(knex, jobId, items);
      for (const { line, text, zaakId } of written) outcomes.set(line, await importLine(line, text, Promise.resolve(zaakId)));
    }
    for (const { line, text } of oneByOne) outcomes.set(line, await importLine(line, text, reserveIds(knex, { zaak: 1, rol: 0, status: 0 }).then((r) => r.zaak[0])));
    return batch.map(({ line, text }) => ({ line, text, outcome: outcomes.get(line)! }));
  };
}
