/** Export and import of zaken with their whole history: the bundles, the import's options and outcome, the verification report. */

/**
 * One line of a migration file: a zaak with everything that hangs off it and its audit trail, each
 * in its standard representation with the read-only fields (uuid, url, registratiedatum, ...) present.
 */
export interface ZaakBundle {
  zaak: Record<string, unknown>;
  resultaat?: Record<string, unknown> | null;
  audittrail?: Record<string, unknown>[];
  [list: string]: unknown;
}

/** A URL-prefix rule: a string value starting with `from` starts with `to` instead. */
export interface RewriteRule {
  from: string;
  to: string;
}

/** What became of one input line. */
export type LineOutcome = 'imported' | 'replaced' | 'unchanged' | 'conflict' | 'failed' | 'deferred';

/** The input of an import: its lines, given anew each time (the job reads them twice: to checksum, then to import). */
export type LineSource = () => AsyncIterable<string>;

export interface ImportOptions {
  /** The base URL of this registry: what the rewritten URLs point at (default: the registry's). */
  baseUrl?: string;
  /** URL-prefix rules from the source's URLs to this registry's (and its catalog's). */
  rewrite?: RewriteRule[];
  /** `historic` (default): stored as given; `strict`: also the zaaktype must be known to the catalog. */
  validation?: 'historic' | 'strict';
  /** A line whose zaak exists with other content: `skip` (a conflict, the default) or `replace`. */
  onConflict?: 'skip' | 'replace';
  /** Validate and write each bundle, then roll it back: nothing stays but the job's report. */
  dryRun?: boolean;
  /** Batches of 100 bundles written at once, each batch in one transaction (default 2); a dry run writes 8 bundles at once. */
  concurrency?: number;
  /** Who imports, for the provenance row of each zaak's audit trail. */
  actor?: { clientId?: string; userId?: string };
  /** Where the lines came from (a file path, `upload`), kept with the job for verification. */
  source?: string;
  /** The job to run (a job created for an upload); default a new one, or the unfinished one over the same input. */
  jobId?: string;
  onProgress?(progress: ImportProgress): void;
}

export interface ImportProgress {
  jobId: string;
  total: number;
  done: number;
  counters: Record<LineOutcome, number>;
}

export interface ImportResult extends ImportProgress {
  /** `paused`: the job's status was set to paused while it ran (`POST /_import/jobs/{id}/pause`); it stopped after the batches it was writing. */
  status: 'finished' | 'paused' | 'error';
  /** The job resumed an earlier run over the same input that had not finished. */
  resumed: boolean;
}

/** One input line in the report (the CSV's row). */
export interface ReportLine {
  line: number;
  zaakUuid: string;
  identificatie: string;
  resultaat: LineOutcome;
  opmerking: string;
  /** JSON paths where the zaak read back (reverse-rewritten) differs from its line. */
  differences: string[];
}

export interface VerificationReport {
  jobId: string;
  verifiedAt: string;
  /** Per resource kind: in the input's settled lines, and stored for their zaken. */
  counts: Record<string, { expected: number; stored: number }>;
  lines: ReportLine[];
  invariants: { name: string; violations: string[] }[];
  sequence: { position: number; highestImported: number | null; ok: boolean };
  /** Nothing differs: every line settled as imported, replaced or unchanged, and read back equal. */
  clean: boolean;
  summary: Record<string, number>;
}

/** Export and import of zaken (`services.migration`): what `zaakregister export` and `import` and the migration plugin use. */
export interface MigrationService {
  /** The bundles of the zaken `filters` (those of `GET /zaken`) select, in id order, a page at a time. */
  export(options?: { baseUrl?: string; filters?: Record<string, string>; pageSize?: number }): AsyncIterable<ZaakBundle>;
  /** Runs an import job over `lines`; one job at a time per database. */
  import(lines: LineSource, options?: ImportOptions): Promise<ImportResult>;
  /** The verification report of a job, comparing what is stored with `lines` (the job's input). */
  verify(jobId: string, lines: LineSource): Promise<VerificationReport>;
}
