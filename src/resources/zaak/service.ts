import type { Knex } from 'knex';
import type { PluginHost } from '../../plugin-host.js';
import type { RegistryServices, RequestContext, ZaakTransition } from '../../plugin.js';
import type { Storage } from '../../storage/types.js';
import { announcement } from '../audittrail/record.js';
import { restrictToAuthorized } from '../shared/access.js';
import { ZAAK_RECORD_DEFINITIONS, type ZaakRecordKind, type ZaakRecordResources } from '../records/index.js';
import type { RecordWriter, RecordWriteScope } from '../shared/zaak-records/definition.js';
import { localZaakUuid, UUID_PATTERN } from '../shared/references.js';
import { toColumns, type ZaakRow } from './columns.js';
import { relationsOf, zaakColumnsWithRelations } from './relations.js';
import { heldRecords } from './held-records.js';
import { DEFERRED_WRITE } from '../../storage/statement-batching.js';
import { changesIdentity } from './writes.js';
import { findDeelzaken, findZaakByUuid, selectZaken } from './repository.js';
import { renderZaak, zaakSummary } from './representation.js';
import type { AccessLimitOptions, ZaakScope, RecordWriteOptions, FindZaakOptions, ZaakService } from '../../plugin-types.js';
export type { AccessLimitOptions, ZaakScope, RecordWriteOptions, FindZaakOptions, ZaakService };

export function zaakService(storage: Storage, host: PluginHost, records: ZaakRecordResources, registry: () => RegistryServices): ZaakService {
  const { listers, writers } = records;
  const db = (scope: ZaakScope) => scope.tx ?? scope.db ?? storage.knex;
  /** Runs a record write in the scope's transaction, or in one of its own. */
  const write = <T>(scope: RecordWriteOptions, kind: ZaakRecordKind, work: (writer: RecordWriter, writeScope: RecordWriteScope) => Promise<T>) => {
    const writer = writers.get(kind);
    if (!writer) throw new Error(`zaken: unknown record kind "${kind}"`);
    const run = (tx: Knex.Transaction) => work(writer, { registry: registry(), baseUrl: scope.baseUrl, tx, actor: scope.actor });
    return scope.tx ? run(scope.tx) : storage.transaction(run);
  };
  /** The kinds whose rendering reads their own table alone, by their table: a transaction holding their zaken reads them once. */
  const ownTable = new Map(ZAAK_RECORD_DEFINITIONS.filter((def) => !def.joins && !def.derive).map((def) => [def.name, def.table]));
  const uuidOf = (scope: ZaakScope, zaak: string) => (UUID_PATTERN.test(zaak) ? zaak.toLowerCase() : localZaakUuid(scope.baseUrl, zaak));

  const service: ZaakService = {
    async find(scope, zaak, options = {}) {
      const uuid = uuidOf(scope, zaak);
      if (!uuid) return undefined;
      if (options.lock && !scope.tx) throw new Error('zaken.find: lock needs a transaction');
      const row = await findZaakByUuid(db(scope), uuid, { forUpdate: options.lock, relations: options.relations });
      if (!row) return undefined;
      if (!options.relations) return zaakSummary(row, scope.baseUrl);
      const rendered = renderZaak(row, relationsOf([row]), scope.baseUrl);
      await host.representZaken([rendered], scope);
      return rendered;
    },
    async list(scope, zaken) {
      const uuids = [...new Set(zaken.map((z) => uuidOf(scope, z)).filter((u): u is string => !!u))];
      if (!uuids.length) return [];
      const rows = (await selectZaken(db(scope)).whereIn('zaak.uuid', uuids).select(zaakColumnsWithRelations(db(scope) as Knex))) as ZaakRow[];
      const relations = relationsOf(rows);
      const byUuid = new Map(rows.map((row) => [row.uuid, renderZaak(row, relations, scope.baseUrl)]));
      const found = uuids.map((uuid) => byUuid.get(uuid)).filter((z): z is Record<string, unknown> => !!z);
      await host.representZaken(found, scope);
      return found;
    },
    async records(scope, kind, zaak) {
      const lister = listers.get(kind);
      if (!lister) throw new Error(`zaken.records: unknown kind "${kind}"`);
      const uuids = (Array.isArray(zaak) ? zaak : [zaak]).map((z) => uuidOf(scope, z)).filter((u): u is string => !!u);
      const table = ownTable.get(kind);
      const read = () => lister(db(scope), uuids, scope.baseUrl);
      return table ? heldRecords(db(scope), table, uuids, read) : read();
    },
    async update(scope, zaak, fields) {
      const uuid = uuidOf(scope, zaak);
      if (!uuid) throw new Error(`zaken.update: ${zaak} is no zaak of this registry`);
      const columns = toColumns(fields);
      // Nothing is read from its answer: it travels with the next statement, unless its conflict must be told here.
      await scope.tx('zaak').where({ uuid }).update({ ...columns, updated_at: scope.tx.fn.now() }).options(changesIdentity(columns) ? {} : DEFERRED_WRITE);
    },
    async close(ctx, { zaak, status, einddatum }) {
      return transition(ctx, 'zaakClosing', { ctx, zaak, status, changes: { einddatum } });
    },
    async reopen(ctx, { zaak, status }) {
      return transition(ctx, 'zaakReopening', { ctx, zaak, status, changes: { einddatum: null, archiefnominatie: null, archiefactiedatum: null } });
    },
    createRecord: (scope, kind, data) => write(scope, kind, (writer, s) => writer.create(s, data)),
    updateRecord: (scope, kind, record, fields) => write(scope, kind, (writer, s) => writer.update(s, record, fields)),
    destroyRecord: (scope, kind, record) => write(scope, kind, (writer, s) => writer.destroy(s, record)),
    limitToAccess(ctx, query, options = {}) {
      restrictToAuthorized(query, ctx.principal, options.scope, options.zaakTable);
      return query;
    },
  };

  async function transition(ctx: RequestContext, hook: 'zaakClosing' | 'zaakReopening', event: ZaakTransition): Promise<Record<string, unknown>> {
    if (!ctx.tx) throw new Error(`zaken.${hook === 'zaakClosing' ? 'close' : 'reopen'}: only inside a write transaction`);
    await host.domain(hook, event);
    await service.update(ctx as ZaakScope & { tx: Knex.Transaction }, String(event.zaak.uuid), event.changes);
    return event.changes;
  }

  return service;
}

/**
 * Announces what destroying a zaak removes, before the rows go: the records of the zaak and of its
 * deelzaken and the deelzaken themselves (source `cascade`), then the zaak (source `request`).
 */
export function removalAnnouncer(host: PluginHost, records: ZaakRecordResources) {
  return async (ctx: RequestContext, zaak: ZaakRow): Promise<void> => {
    if (!host.has('resourceChanged')) return;
    const tx = ctx.tx!;
    const rows = [...(await findDeelzaken(tx, zaak.id)), zaak];
    const summaries = new Map(rows.map((row) => [zaakUrl(ctx.baseUrl, row), zaakSummary(row, ctx.baseUrl)]));
    const origin = (source: 'cascade' | 'request') => ({ tx, baseUrl: ctx.baseUrl, action: 'destroy' as const, source, status: 204, actor: {}, ctx });
    for (const [kind, list] of records.listers) {
      for (const record of await list(tx, rows.map((r) => r.uuid), ctx.baseUrl)) {
        const hoofdObject = String(record[records.zaakFields.get(kind)!]);
        const change = { resource: kind, resourceUrl: String(record.url), hoofdObject, zaak: summaries.get(hoofdObject)!, oud: record, nieuw: null };
        await host.domain('resourceChanged', announcement(origin('cascade'), change));
      }
    }
    for (const row of rows) {
      const url = zaakUrl(ctx.baseUrl, row);
      const before = row === zaak ? (ctx.current ?? summaries.get(url)!) : summaries.get(url)!;
      const change = { resource: 'zaak', resourceUrl: url, hoofdObject: url, zaak: summaries.get(url)!, oud: before, nieuw: null };
      await host.domain('resourceChanged', announcement(origin(row === zaak ? 'request' : 'cascade'), change));
    }
  };
}

const zaakUrl = (baseUrl: string, row: ZaakRow) => `${baseUrl}/zaken/${row.uuid}`;
