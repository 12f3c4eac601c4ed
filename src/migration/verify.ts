import type { RegistryServices } from '../plugin-types.js';
import { COUNTED_KINDS, recordsOf, reversed, rewrite, type RewriteRule, type ZaakBundle } from './bundle.js';
import type { LineOutcome, LineSource, ReportLine, VerificationReport } from '../plugin-types.js';
export type { ReportLine, VerificationReport };
import { readBundles } from './read-bundles.js';

const STORED: readonly LineOutcome[] = ['imported', 'replaced', 'unchanged'];
const BATCH = 200;

/**
 * The JSON paths where `actual` differs from `expected`. Key order aside: JSON-valued fields
 * (kenmerken, audit wijzigingen) come back in the database's key order, with the same values.
 */
export function differingPaths(expected: unknown, actual: unknown, path = ''): string[] {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return [];
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && Array.isArray(expected) === Array.isArray(actual)) {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])];
    const inner = keys.flatMap((key) => differingPaths(e[key], a[key], Array.isArray(expected) ? `${path}[${key}]` : path ? `${path}.${key}` : key));
    return inner;
  }
  return [path || '$'];
}

/** A stored bundle beside its line: the provenance rows of imports are the registry's own, left out of the comparison. */
function comparable(stored: ZaakBundle, source: ZaakBundle): ZaakBundle {
  const sourceAudit = new Set((source.audittrail ?? []).map((row) => String(row.uuid).toLowerCase()));
  return { ...stored, audittrail: (stored.audittrail ?? []).filter((row) => sourceAudit.has(String(row.uuid))) };
}

/**
 * The verification report of an import job: counts per kind expected against stored, a round trip of
 * every zaak (read through the registry's renderers, reverse-rewritten, compared with its line), the
 * invariants, and the identificatie sequence's position.
 */
export async function verifyJob(services: RegistryServices, jobId: string, lines: LineSource): Promise<VerificationReport> {
  const knex = services.storage.knex;
  const job = (await knex('migration_job').where({ id: jobId }).first()) as { options: { baseUrl: string; rewrite: RewriteRule[] } } | undefined;
  if (!job) throw new Error(`no import job ${jobId}`);
  const { baseUrl, rewrite: rules } = job.options;
  const back = reversed(rules);
  const items = new Map(
    ((await knex('migration_item').where({ job_id: jobId }).select('line', 'zaak_uuid', 'identificatie', 'status', 'message')) as { line: number; zaak_uuid: string | null; identificatie: string; status: LineOutcome; message: string }[]).map((row) => [row.line, row]),
  );
  const counts = Object.fromEntries(COUNTED_KINDS.map((kind) => [kind, { expected: 0, stored: 0 }])) as VerificationReport['counts'];
  const report: ReportLine[] = [];
  const invariants = { currentStatus: [] as string[], hoofdzaak: [] as string[], auditHoofdObject: [] as string[], provenance: [] as string[] };
  let pending: { line: ReportLine; source: ZaakBundle }[] = [];

  const compare = async () => {
    const stored = new Map((await readBundles(services, baseUrl, pending.map((p) => p.line.zaakUuid))).map((bundle) => [String(bundle.zaak.uuid), bundle]));
    for (const { line, source } of pending) {
      const found = stored.get(line.zaakUuid);
      if (!found) {
        line.differences.push('$ (not stored)');
        continue;
      }
      counts.zaak.stored++;
      for (const [kind, records] of recordsOf(found)) counts[kind].stored += records.length;
      const audit = found.audittrail ?? [];
      counts.audittrail.stored += audit.length;
      const provenanceRows = audit.length - comparable(found, source).audittrail!.length;
      if (provenanceRows !== 1) invariants.provenance.push(`${line.zaakUuid}: ${provenanceRows} rows besides the source's audit trail, 1 expected`);
      const zaakUrl = `${baseUrl}/zaken/${line.zaakUuid}`;
      for (const row of audit) if (row.hoofdObject !== zaakUrl) invariants.auditHoofdObject.push(`${line.zaakUuid}: audit ${String(row.uuid)} names ${String(row.hoofdObject)}`);
      if (source.zaak.hoofdzaak && !found.zaak.hoofdzaak) invariants.hoofdzaak.push(`${line.zaakUuid}: hoofdzaak ${String(source.zaak.hoofdzaak)} does not resolve`);
      const statussen = (source.statussen as Record<string, unknown>[] | undefined) ?? [];
      const last = [...statussen].sort((a, b) => Date.parse(String(a.datumStatusGezet)) - Date.parse(String(b.datumStatusGezet))).pop();
      const current = found.zaak.status ? String(found.zaak.status).split('/').pop() : undefined;
      if (last && current !== String(last.uuid).toLowerCase()) invariants.currentStatus.push(`${line.zaakUuid}: current status ${current ?? 'none'}, expected ${String(last.uuid)}`);
      line.differences.push(...differingPaths(source, rewrite(comparable(found, source), back)));
    }
    pending = [];
  };

  let number = 0;
  for await (const text of lines()) {
    number++;
    if (!text.trim()) continue;
    const item = items.get(number);
    const line: ReportLine = { line: number, zaakUuid: item?.zaak_uuid ?? '', identificatie: item?.identificatie ?? '', resultaat: item?.status ?? 'failed', opmerking: item ? item.message : 'not processed by the job', differences: [] };
    report.push(line);
    if (!item || !STORED.includes(item.status)) continue;
    const source = JSON.parse(text) as ZaakBundle;
    counts.zaak.expected++;
    for (const [kind, records] of recordsOf(source)) counts[kind].expected += records.length;
    counts.audittrail.expected += (source.audittrail?.length ?? 0) + 1;
    pending.push({ line, source });
    if (pending.length >= BATCH) await compare();
  }
  await compare();

  const duplicates = (await knex('zaak').groupBy('bronorganisatie', 'identificatie').havingRaw('count(*) > 1').select('bronorganisatie', 'identificatie')) as { bronorganisatie: string; identificatie: string }[];
  const year = new Date().getUTCFullYear();
  const { rows } = (await knex.raw(
    `select (select last_value from zaak_identificatie_seq)::bigint as position,
            (select max(substring(identificatie from ?)::bigint) from zaak where identificatie like ?) as highest`,
    [`^ZAAK-${year}-(\\d{10})$`, `ZAAK-${year}-%`],
  )) as { rows: { position: string; highest: string | null }[] };
  const position = Number(rows[0].position);
  const highest = rows[0].highest === null ? null : Number(rows[0].highest);
  const invariantList = [
    { name: 'current status is the latest by datumStatusGezet', violations: invariants.currentStatus },
    { name: 'identificatie unique per bronorganisatie', violations: duplicates.map((d) => `${d.bronorganisatie} ${d.identificatie}`) },
    { name: 'every hoofdzaak resolves', violations: invariants.hoofdzaak },
    { name: 'every audit hoofdObject is its zaak', violations: invariants.auditHoofdObject },
    { name: 'one provenance row per imported zaak', violations: invariants.provenance },
  ];
  const sequence = { position, highestImported: highest, ok: highest === null || position >= highest };
  const summary = Object.fromEntries(['imported', 'replaced', 'unchanged', 'conflict', 'failed', 'deferred'].map((o) => [o, report.filter((l) => l.resultaat === o).length]));
  summary.differing = report.filter((l) => l.differences.length).length;
  const clean =
    report.every((l) => STORED.includes(l.resultaat) && !l.differences.length) &&
    Object.values(counts).every((c) => c.expected === c.stored) &&
    invariantList.every((i) => !i.violations.length) &&
    sequence.ok;
  return { jobId, verifiedAt: new Date().toISOString(), counts, lines: report, invariants: invariantList, sequence, clean, summary };
}

const csvField = (value: unknown) => {
  const text = String(value ?? '');
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** The report's lines as CSV: `line,zaak_uuid,identificatie,resultaat,opmerking` (the differing paths in opmerking). */
export function reportCsv(report: VerificationReport): string {
  const rows = report.lines.map((l) => [l.line, l.zaakUuid, l.identificatie, l.resultaat, [l.opmerking, ...(l.differences.length ? [`differs at ${l.differences.join(' ')}`] : [])].filter(Boolean).join('; ')]);
  return [['line', 'zaak_uuid', 'identificatie', 'resultaat', 'opmerking'], ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}
