import { createReadStream, createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Logger } from '../log.js';
import type { Registry } from '../registry.js';
import { parseRewrite } from '../migration/bundle.js';
import { applyZaakFilters } from '../migration/read-bundles.js';
import { reportCsv } from '../migration/verify.js';
import type { LineSource } from '../plugin-types.js';
import { progressReporter } from './progress.js';
import { UsageError } from './usage.js';

export const EXPORT_HELP = `Usage: zaakregister export [--out zaken.ndjson] [--filter <name>=<value>]... [options]
       zaakregister export --from-api <base URL> (--client-id <id> --secret <secret> | --bearer <token>) --out zaken.ndjson [--cursor <file>]

Writes zaken as NDJSON bundles, one zaak a line with everything that hangs off it and its audit
trail, in their standard representations (uuids, timestamps and archive fields as stored): from this
registry's database (--config / --database), or from any ZGW Zaken API over HTTP (--from-api).
Streams: memory stays constant however many zaken there are. Progress goes to stderr.

Options:
  --out <file>                 the NDJSON file (default: stdout)
  --filter <name>=<value>      only the zaken this GET /zaken filter selects (repeatable), e.g.
                               --filter zaaktype=https://… --filter startdatum__gte=2020-01-01
  --from-api <base URL>        read another Zaken API instead, e.g. https://openzaak.example.nl/zaken/api/v1
  --client-id <id>, --secret <secret>
                               ZGW JWT credentials for --from-api
  --bearer <token>             or a token to send as it is (an OAuth2 access token, e.g. OneGround's)
  --cursor <file>              where --from-api keeps its position (default <out>.cursor): rerun the
                               same command after an interruption and it continues there
  --concurrency <n>            zaken read at once from --from-api (default 4)
  --config <file.json>         configuration file (its database and baseUrl)
  --database <dir|postgres-url>  database (env DATABASE_URL)
  --log-level <level>          debug, info, warn, error or silent
  -h, --help                   this help`;

export const IMPORT_HELP = `Usage: zaakregister import --in zaken.ndjson [--rewrite <from>=<to>]... [options]
       zaakregister import --verify <job id> [--in zaken.ndjson] [--report <file>]

Imports NDJSON zaak bundles (zaakregister export, or another registry's data in that shape): each
bundle in one transaction, its uuids, identificaties, timestamps, archive fields and audit trail as
given, plus one audit row naming the import. No notifications are sent. A ledger makes it safe to
run again: a line imported before is "unchanged", a changed line a "conflict" (or replaced), and a
job that was interrupted (even kill -9) continues where it stopped when run again with the same
input and options. One import runs at a time per database.

Options:
  --in <file>                  the NDJSON input
  --rewrite <from>=<to>        URL-prefix rule, repeatable, first match wins: the source's Zaken API
                               base to this registry's, the old Catalogi API to the new, ...
  --validation <mode>          historic (default: stored as given) or strict (zaaktype must resolve)
  --on-conflict <mode>         skip (default: report a conflict) or replace
  --dry-run                    validate and write every bundle, then roll it back
  --concurrency <n>            batches of 100 bundles written at once (default 2)
  --verify <job id>            compare what the job stored with its input: counts per kind, every
                               zaak read back and reverse-rewritten, invariants; writes the report as
                               JSON and CSV and exits 1 on any difference
  --report <file>              the report's name without extension (default import-<job id>)
  --config <file.json>         configuration file (its database and baseUrl)
  --database <dir|postgres-url>  database (env DATABASE_URL)
  --log-level <level>          debug, info, warn, error or silent
  -h, --help                   this help`;

/** The flags export and import read. */
export interface MigrationFlags {
  out?: string;
  in?: string;
  filter?: string[];
  rewrite?: string[];
  validation?: string;
  'on-conflict'?: string;
  'dry-run'?: boolean;
  concurrency?: string;
  verify?: string;
  report?: string;
}

/**
 * A file's lines, read anew each time the source is called. Split here rather than by readline,
 * whose iterator reads ahead of a slow consumer: the stream is read only as fast as lines are taken.
 */
export const fileLines =
  (file: string): LineSource =>
  async function* () {
    let rest = '';
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 })) {
      const lines = (rest + (chunk as string)).split('\n');
      rest = lines.pop()!;
      for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
    }
    if (rest) yield rest;
  };

/** Writes a line, waiting while the destination's buffer is full (constant memory). */
export async function writeLine(out: Writable, line: string): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, 'drain');
}

export async function closeOutput(out: Writable): Promise<void> {
  if (out === process.stdout) return;
  out.end();
  await once(out, 'finish');
}

const concurrencyOf = (flags: MigrationFlags, command: string) => {
  if (flags.concurrency === undefined) return undefined;
  if (!/^[1-9]\d?$/.test(flags.concurrency)) throw new UsageError(command, '--concurrency is a number from 1 to 99');
  return Number(flags.concurrency);
};

/** `export` from this registry's database. */
export async function exportCommand(registry: Registry, flags: MigrationFlags, log: Logger): Promise<number> {
  const filters: Record<string, string> = {};
  for (const filter of flags.filter ?? []) {
    const at = filter.indexOf('=');
    if (at <= 0) throw new UsageError('export', `--filter ${filter}: give <name>=<value>`);
    filters[filter.slice(0, at)] = filter.slice(at + 1);
  }
  const knex = registry.services.storage.knex;
  let total: number;
  try {
    total = Number(((await applyZaakFilters(knex('zaak'), filters).count({ n: '*' })) as { n: string }[])[0].n);
  } catch (error) {
    throw new UsageError('export', (error as Error).message);
  }
  const out = flags.out ? createWriteStream(flags.out) : process.stdout;
  const progress = progressReporter('export', log);
  let done = 0;
  for await (const bundle of registry.services.migration.export({ filters })) {
    await writeLine(out, JSON.stringify(bundle));
    progress.update({ done: ++done, total });
  }
  await closeOutput(out);
  progress.finish({ done, total });
  log.info(`exported ${done} zaken${flags.out ? ` to ${flags.out}` : ''}`, { zaken: done });
  return 0;
}

/** `import --in` and `import --verify`. */
export async function importCommand(registry: Registry, flags: MigrationFlags, log: Logger): Promise<number> {
  if (flags.verify !== undefined) return verifyCommand(registry, flags, log);
  if (!flags.in) throw new UsageError('import', 'import needs --in <file.ndjson> (or --verify <job id>)');
  if (flags.validation !== undefined && flags.validation !== 'historic' && flags.validation !== 'strict') throw new UsageError('import', '--validation is historic or strict');
  if (flags['on-conflict'] !== undefined && flags['on-conflict'] !== 'skip' && flags['on-conflict'] !== 'replace') throw new UsageError('import', '--on-conflict is skip or replace');
  let rewrite;
  try {
    rewrite = (flags.rewrite ?? []).map(parseRewrite);
  } catch (error) {
    throw new UsageError('import', (error as Error).message);
  }
  const input = path.resolve(flags.in);
  const progress = progressReporter('import', log);
  const result = await registry.services.migration.import(fileLines(input), {
    rewrite,
    validation: flags.validation as 'historic' | 'strict' | undefined,
    onConflict: flags['on-conflict'] as 'skip' | 'replace' | undefined,
    dryRun: flags['dry-run'],
    concurrency: concurrencyOf(flags, 'import'),
    source: input,
    onProgress: progress.update,
  });
  progress.finish(result);
  const counts = Object.entries(result.counters).map(([outcome, n]) => `${outcome} ${n}`).join(', ');
  process.stdout.write(`job ${result.jobId}${result.resumed ? ' (resumed)' : ''}${flags['dry-run'] ? ' (dry run)' : ''}: ${counts}\n`);
  const { conflict, failed, deferred } = result.counters;
  if (conflict + failed + deferred) process.stdout.write(`see zaakregister import --verify ${result.jobId} for the lines and why\n`);
  return conflict + failed + deferred ? 1 : 0;
}

async function verifyCommand(registry: Registry, flags: MigrationFlags, log: Logger): Promise<number> {
  const jobId = flags.verify!;
  const job = (await registry.services.storage.knex('migration_job').where({ id: jobId }).first('options').catch(() => undefined)) as { options: { source?: string } } | undefined;
  if (!job) throw new UsageError('import', `--verify ${jobId}: no such import job`);
  const input = flags.in ? path.resolve(flags.in) : job.options.source;
  if (!input || input === 'upload') throw new UsageError('import', `--verify ${jobId}: give its input with --in`);
  const report = await registry.services.migration.verify(jobId, fileLines(input));
  const name = flags.report ?? `import-${jobId}`;
  writeFileSync(`${name}.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${name}.csv`, reportCsv(report));
  const counts = Object.entries(report.counts).map(([kind, c]) => `${kind} ${c.stored}/${c.expected}`).join(', ');
  const violations = report.invariants.reduce((n, i) => n + i.violations.length, 0);
  process.stdout.write(
    `job ${jobId}: ${report.clean ? 'clean' : 'DIFFERENCES'}\n` +
      `  lines: ${Object.entries(report.summary).map(([k, n]) => `${k} ${n}`).join(', ')}\n` +
      `  stored/expected: ${counts}\n` +
      `  invariant violations: ${violations}; identificatie sequence at ${report.sequence.position} (highest imported this year: ${report.sequence.highestImported ?? 'none'})\n` +
      `  report: ${name}.json, ${name}.csv\n`,
  );
  log.debug('verification report written', { json: `${name}.json`, csv: `${name}.csv` });
  return report.clean ? 0 : 1;
}
