import { randomUUID } from 'node:crypto';
import { checkOptions, optionsSchema, ProblemError, reportCsv, type ImportOptions, type LineSource, type Operation, type Plugin, type RegistryServices, type RequestContext } from '../../src/plugin-api.js';


export interface MigrationOptions {
  /** The client ids that may use the import API (besides holding `heeftAlleAutorisaties` or the scope `zaken.importeren`). */
  allowedClients: string[];
  /** Bundles one job may hold (default 200,000). Each upload is at most 1 MB of JSON, as every request body. */
  maxBundles?: number;
}

export const migrationOptionsSchema = optionsSchema<MigrationOptions>(
  {
    allowedClients: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Client ids that may use the import API; they need heeftAlleAutorisaties or the scope zaken.importeren as well.' },
    maxBundles: { type: 'integer', minimum: 1, description: 'Bundles one job may hold (default 200000).' },
  },
  { description: 'The admin HTTP API of zaak imports under /_import/jobs (plugins/migration/README.md); not in any preset.', required: ['allowedClients'] },
);

/** The scope that grants the import API to an application without heeftAlleAutorisaties. */
export const IMPORT_SCOPE = 'zaken.importeren';

const jobSchema = { type: 'object' };
const jobBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rewrite: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['from', 'to'], properties: { from: { type: 'string', format: 'uri' }, to: { type: 'string', format: 'uri' } } } },
    validation: { type: 'string', enum: ['historic', 'strict'] },
    onConflict: { type: 'string', enum: ['skip', 'replace'] },
    dryRun: { type: 'boolean' },
  },
};
const bundlesBody = { type: 'object', additionalProperties: false, required: ['bundles'], properties: { bundles: { type: 'array', minItems: 1, items: { type: 'object', required: ['zaak'] } } } };

/** The lines uploaded to a job, in order, read a page at a time. */
const uploadedLines =
  (services: RegistryServices, jobId: string): LineSource =>
  async function* () {
    for (let after = 0; ; ) {
      const rows = (await services.storage.knex('migration_upload').where({ job_id: jobId }).where('line', '>', after).orderBy('line').limit(500).select('line', 'content')) as { line: number; content: string }[];
      if (!rows.length) return;
      for (const row of rows) yield row.content;
      after = rows[rows.length - 1].line;
    }
  };

/**
 * The admin HTTP API of zaak imports (`/_import/jobs`): create a job with its options, upload its
 * bundles (JSON, in as many requests as needed), start it, follow it, and read its verification
 * report. Only for the `allowedClients`, and only when they hold `heeftAlleAutorisaties` or the scope
 * `zaken.importeren`; input by upload only, never a path on the server.
 */
export function migration(options: MigrationOptions): Plugin {
  checkOptions('migration', migrationOptionsSchema, options);
  const maxBundles = options.maxBundles ?? 200_000;
  const allowed = new Set(options.allowedClients);
  /** The runs of this instance, by job: a paused run ends its batch before the job resumes, is verified or is deleted. */
  const runs = new Map<string, Promise<unknown>>();

  const admin = async (ctx: RequestContext) => {
    const principal = ctx.principal;
    const granted = !!principal && (principal.allAuthorizations || principal.authorizations.some((a) => a.scopes.includes(IMPORT_SCOPE)));
    if (!granted || !allowed.has(principal.clientId)) throw new ProblemError('permission_denied', { detail: 'Alleen beheerders mogen zaken importeren.' });
  };
  const jobOf = async (ctx: RequestContext) => {
    const job = (await ctx.registry.storage.knex('migration_job').where({ id: ctx.params.id }).first()) as Record<string, any> | undefined;
    if (!job) throw new ProblemError('not_found', { detail: 'Importjob niet gevonden.' });
    return job;
  };
  const shown = (ctx: RequestContext, job: Record<string, any>) => ({
    url: `${ctx.baseUrl}/_import/jobs/${job.id}`,
    id: job.id,
    status: job.status,
    total: job.total,
    counters: job.counters,
    options: { rewrite: job.options.rewrite, validation: job.options.validation, onConflict: job.options.onConflict, dryRun: job.options.dryRun },
    createdBy: job.created_by,
    startedAt: job.started_at,
    finishedAt: job.finished_at,
  });
  const conflict = (job: Record<string, any>, detail = `Deze importjob is ${job.status}.`) => new ProblemError('conflict', { detail });
  /** The job, once a run of this instance that was told to stop has stopped (after the batch it was writing). */
  const stoppedJob = async (ctx: RequestContext) => {
    const job = await jobOf(ctx);
    if (job.status === 'active') return job;
    await runs.get(job.id);
    return jobOf(ctx);
  };
  /**
   * Runs the job in the background when its status is one of `from` (taken over in one statement, so
   * two requests never run it twice), after `prepare`; it continues at the lines it had not settled.
   */
  const launch = async (ctx: RequestContext, from: readonly string[], prepare?: (jobId: string) => Promise<void>) => {
    const job = await stoppedJob(ctx);
    const services = ctx.registry;
    const knex = services.storage.knex;
    if (!(await knex('migration_job').where({ id: job.id }).whereIn('status', from).update({ status: 'active' }))) throw conflict(await jobOf(ctx));
    await prepare?.(job.id);
    const work = services.migration
      .import(uploadedLines(services, job.id), { ...job.options, jobId: job.id, actor: { clientId: ctx.principal!.clientId, userId: ctx.principal!.userId } })
      .catch(async (error: unknown) => {
        services.log.error(`import job ${job.id} failed`, { error: String((error as Error).message) });
        // A run that never got going (another job holds the import lock) leaves the job stopped, not active.
        if (job.status !== 'active') await knex('migration_job').where({ id: job.id, status: 'active' }).update({ status: 'error' });
      });
    runs.set(job.id, work);
    void work.finally(() => runs.get(job.id) === work && runs.delete(job.id));
    ctx.response.status = 202;
    ctx.response.body = shown(ctx, { ...job, status: 'active' });
  };
  const respondWithReport = async (ctx: RequestContext, job: Record<string, any>) => {
    const report = await ctx.registry.migration.verify(job.id, uploadedLines(ctx.registry, job.id));
    if (ctx.query.format === 'csv') {
      ctx.response.headers['content-type'] = 'text/csv; charset=utf-8';
      ctx.response.body = reportCsv(report);
    } else ctx.response.body = report;
  };
  const formatParameter = [{ name: 'format', description: 'json (standaard) of csv.', schema: { type: 'string', enum: ['json', 'csv'] } }];
  const common = { resource: 'import', write: false, load: admin } as const;
  const doc = (summary: string, successStatus: number) => ({ summary, tags: ['import'], successStatus, responseSchema: jobSchema });

  const operations: Operation[] = [
    {
      ...common,
      id: 'import_job_create',
      method: 'post',
      path: '/_import/jobs',
      action: 'create',
      requestBody: jobBody,
      async execute(ctx) {
        const id = randomUUID();
        const body = (ctx.body ?? {}) as Pick<ImportOptions, 'rewrite' | 'validation' | 'onConflict' | 'dryRun'>;
        await ctx.registry.storage.knex('migration_job').insert({ id, status: 'pending', options: JSON.stringify({ ...body, source: 'upload', baseUrl: ctx.baseUrl }), created_by: ctx.principal!.clientId });
        ctx.response.status = 201;
        ctx.response.body = shown(ctx, await jobOf({ ...ctx, params: { id } } as RequestContext));
      },
      openapi: doc('Maak een importjob aan (beheer).', 201),
    },
    {
      ...common,
      id: 'import_job_bundles',
      method: 'post',
      path: '/_import/jobs/{id}/bundles',
      action: 'upload',
      requestBody: bundlesBody,
      async execute(ctx) {
        const job = await jobOf(ctx);
        if (job.status !== 'pending') throw new ProblemError('conflict', { detail: 'Deze importjob is al gestart.' });
        const bundles = (ctx.body as { bundles: unknown[] }).bundles;
        const knex = ctx.registry.storage.knex;
        const received = await knex.transaction(async (tx) => {
          const { rows } = (await tx.raw('select coalesce(max(line), 0)::int as last from migration_upload where job_id = ?', [job.id])) as { rows: { last: number }[] };
          const last = rows[0].last;
          if (last + bundles.length > maxBundles) throw new ProblemError('payload_too_large', { detail: `Een importjob bevat hoogstens ${maxBundles} zaken.` });
          await tx('migration_upload').insert(bundles.map((bundle, i) => ({ job_id: job.id, line: last + i + 1, content: JSON.stringify(bundle) })));
          return last + bundles.length;
        });
        ctx.response.status = 202;
        ctx.response.body = { ...shown(ctx, job), received };
      },
      openapi: doc('Lever zaakbundels aan bij een importjob (beheer).', 202),
    },
    {
      ...common,
      id: 'import_job_start',
      method: 'post',
      path: '/_import/jobs/{id}/start',
      action: 'start',
      async execute(ctx) {
        await launch(ctx, ['pending', 'active', 'paused', 'error']);
      },
      openapi: doc('Start een importjob (beheer).', 202),
    },
    {
      ...common,
      id: 'import_job_retrieve',
      method: 'get',
      path: '/_import/jobs/{id}',
      action: 'retrieve',
      async execute(ctx) {
        ctx.response.body = shown(ctx, await jobOf(ctx));
      },
      openapi: doc('Een importjob: status en tellers (beheer).', 200),
    },
    {
      ...common,
      id: 'import_job_report',
      method: 'get',
      path: '/_import/jobs/{id}/report',
      action: 'report',
      queryParameters: formatParameter,
      async execute(ctx) {
        const job = await jobOf(ctx);
        if (job.status !== 'finished') throw conflict(job, `Deze importjob is ${job.status}; het rapport volgt als hij klaar is.`);
        await respondWithReport(ctx, job);
      },
      openapi: doc('Het verificatierapport van een importjob (beheer).', 200),
    },
    {
      ...common,
      id: 'import_job_pause',
      method: 'post',
      path: '/_import/jobs/{id}/pause',
      action: 'pause',
      async execute(ctx) {
        const job = await jobOf(ctx);
        if (!(await ctx.registry.storage.knex('migration_job').where({ id: job.id, status: 'active' }).update({ status: 'paused' }))) throw conflict(job, `Deze importjob loopt niet (${job.status}).`);
        // The run checks the status after each batch; when it runs here, the answer waits for it to stop.
        ctx.response.status = 202;
        ctx.response.body = shown(ctx, await stoppedJob(ctx));
      },
      openapi: doc('Pauzeer een lopende importjob na de batch die hij schrijft (beheer).', 202),
    },
    {
      ...common,
      id: 'import_job_resume',
      method: 'post',
      path: '/_import/jobs/{id}/resume',
      action: 'resume',
      async execute(ctx) {
        await launch(ctx, ['paused', 'error']);
      },
      openapi: doc('Hervat een gepauzeerde of gestopte importjob waar hij bleef (beheer).', 202),
    },
    {
      ...common,
      id: 'import_job_retry',
      method: 'post',
      path: '/_import/jobs/{id}/retry',
      action: 'retry',
      async execute(ctx) {
        // Lines without a ledger row are the ones a run takes: the failed ones go again, the settled ones stay.
        await launch(ctx, ['finished', 'paused', 'error'], (jobId) => ctx.registry.storage.knex('migration_item').where({ job_id: jobId, status: 'failed' }).delete());
      },
      openapi: doc('Probeer de mislukte regels van een importjob opnieuw (beheer).', 202),
    },
    {
      ...common,
      id: 'import_job_verify',
      method: 'post',
      path: '/_import/jobs/{id}/verify',
      action: 'verify',
      queryParameters: formatParameter,
      async execute(ctx) {
        const job = await stoppedJob(ctx);
        if (job.status === 'active' || job.status === 'pending') throw conflict(job, `Deze importjob is ${job.status}; verifieer hem als hij stilstaat.`);
        await respondWithReport(ctx, job);
      },
      openapi: doc('Verifieer een importjob nu, ook een gepauzeerde of gestopte (beheer).', 200),
    },
    {
      ...common,
      id: 'import_job_delete',
      method: 'delete',
      path: '/_import/jobs/{id}',
      action: 'destroy',
      async execute(ctx) {
        const job = await stoppedJob(ctx);
        // Its uploads and ledger lines go with it (on delete cascade); the zaken it imported and their ledger rows stay.
        if (!(await ctx.registry.storage.knex('migration_job').where({ id: job.id }).whereNot({ status: 'active' }).delete())) throw conflict(job, 'Deze importjob loopt; pauzeer hem eerst.');
        ctx.response.status = 204;
      },
      openapi: { summary: 'Verwijder een importjob die niet loopt, met zijn aangeleverde bundels (beheer).', tags: ['import'], successStatus: 204 },
    },
  ];

  return {
    name: 'migration',
    setup(api) {
      for (const operation of operations) api.addOperation(operation);
    },
    async close() {
      await Promise.allSettled(runs.values());
    },
  };
}
