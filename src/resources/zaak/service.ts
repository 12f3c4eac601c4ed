import type { Knex } from 'knex';
import type { PluginHost } from '../../plugin-host.js';
import type { RequestContext, ZaakTransition } from '../../plugin.js';
import type { Storage } from '../../storage/types.js';
import type { RecordLister, ZaakRecordKind } from '../records/index.js';
import { localZaakUuid, UUID_PATTERN } from '../shared/references.js';
import { findZaakByUuid, loadZaakRelations, toColumns } from './repository.js';
import { renderZaak, zaakSummary } from './representation.js';

/**
 * Where a service call reads and writes: inside an open transaction (`tx`) or on the storage, with
 * the base URL that resource URLs are built on. A `RequestContext` is one.
 */
export interface ZaakScope {
  readonly baseUrl: string;
  readonly tx?: Knex.Transaction;
}

export interface FindZaakOptions {
  /** Hold the zaak's row (`FOR UPDATE`) until the transaction ends; needs `scope.tx`. */
  lock?: boolean;
  /** Also the fields derived from its records (status, rollen, deelzaken, ...): seven more queries. */
  relations?: boolean;
}

/** Reads zaken and their records as clients see them, and moves a zaak between open and closed. */
export interface ZaakService {
  /** A zaak of this registry by URL or uuid, as clients see it (its own fields unless `relations`). */
  find(scope: ZaakScope, zaak: string, options?: FindZaakOptions): Promise<Record<string, unknown> | undefined>;
  /** The records of one kind of a zaak (or zaken), as clients see them, oldest first. */
  records(scope: ZaakScope, kind: ZaakRecordKind, zaak: string | string[]): Promise<Record<string, unknown>[]>;
  /** Stores zaak fields (API names) directly, without the API's checks: for derived values. */
  update(scope: ZaakScope & { tx: Knex.Transaction }, zaak: string, fields: Record<string, unknown>): Promise<void>;
  /**
   * Closes the zaak in the request's transaction: sets `einddatum` plus whatever `zaakClosing` hooks
   * add to the changes. Returns the changes stored.
   */
  close(ctx: RequestContext, transition: { zaak: Record<string, unknown>; status: Record<string, unknown>; einddatum: string }): Promise<Record<string, unknown>>;
  /** Reopens it: `einddatum`, `archiefnominatie` and `archiefactiedatum` become null, then `zaakReopening` hooks run. */
  reopen(ctx: RequestContext, transition: { zaak: Record<string, unknown>; status: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

export function zaakService(storage: Storage, host: PluginHost, listers: ReadonlyMap<string, RecordLister>): ZaakService {
  const db = (scope: ZaakScope) => scope.tx ?? storage.knex;
  const uuidOf = (scope: ZaakScope, zaak: string) => (UUID_PATTERN.test(zaak) ? zaak.toLowerCase() : localZaakUuid(scope.baseUrl, zaak));

  const service: ZaakService = {
    async find(scope, zaak, options = {}) {
      const uuid = uuidOf(scope, zaak);
      if (!uuid) return undefined;
      if (options.lock && !scope.tx) throw new Error('zaken.find: lock needs a transaction');
      const row = await findZaakByUuid(db(scope), uuid, { forUpdate: options.lock });
      if (!row) return undefined;
      if (!options.relations) return zaakSummary(row, scope.baseUrl);
      return renderZaak(row, await loadZaakRelations(db(scope), [row.id]), scope.baseUrl);
    },
    async records(scope, kind, zaak) {
      const lister = listers.get(kind);
      if (!lister) throw new Error(`zaken.records: unknown kind "${kind}"`);
      const uuids = (Array.isArray(zaak) ? zaak : [zaak]).map((z) => uuidOf(scope, z)).filter((u): u is string => !!u);
      return lister(db(scope), uuids, scope.baseUrl);
    },
    async update(scope, zaak, fields) {
      const uuid = uuidOf(scope, zaak);
      if (!uuid) throw new Error(`zaken.update: ${zaak} is no zaak of this registry`);
      await scope.tx('zaak').where({ uuid }).update({ ...toColumns(fields), updated_at: scope.tx.fn.now() });
    },
    async close(ctx, { zaak, status, einddatum }) {
      return transition(ctx, 'zaakClosing', { ctx, zaak, status, changes: { einddatum } });
    },
    async reopen(ctx, { zaak, status }) {
      return transition(ctx, 'zaakReopening', { ctx, zaak, status, changes: { einddatum: null, archiefnominatie: null, archiefactiedatum: null } });
    },
  };

  async function transition(ctx: RequestContext, hook: 'zaakClosing' | 'zaakReopening', event: ZaakTransition): Promise<Record<string, unknown>> {
    if (!ctx.tx) throw new Error(`zaken.${hook === 'zaakClosing' ? 'close' : 'reopen'}: only inside a write transaction`);
    await host.transition(hook, event);
    await service.update(ctx as ZaakScope & { tx: Knex.Transaction }, String(event.zaak.uuid), event.changes);
    return event.changes;
  }

  return service;
}
