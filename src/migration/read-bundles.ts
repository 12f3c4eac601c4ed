import type { Knex } from 'knex';
import type { RegistryServices } from '../plugin-types.js';
import { renderAuditRow } from '../resources/audittrail/resource.js';
import { zaakFilters } from '../resources/zaak/filters.js';
import { BUNDLE_LISTS, type ZaakBundle } from './bundle.js';

/** The URL of a record's zaak: its `zaak` (`gerelateerdAan`) field, or for a nested one without it (ZaakBesluit) the start of its own URL. */
const zaakUrlOf = (kind: string, record: Record<string, unknown>) =>
  String(record[kind === 'zaaknotitie' ? 'gerelateerdAan' : 'zaak'] ?? /^(.*\/zaken\/[^/]+)\//.exec(String(record.url))?.[1]);

/**
 * The bundles of some zaken (by uuid, in that order) as the registry's API shows them at `baseUrl`:
 * the zaak as `GET /zaken/{uuid}` renders it, its records as their lists do (oldest first), its audit
 * trail as `GET /zaken/{uuid}/audittrail`. One query per kind for the whole batch.
 */
export async function readBundles(services: RegistryServices, baseUrl: string, uuids: string[], db: Knex = services.storage.knex): Promise<ZaakBundle[]> {
  if (!uuids.length) return [];
  const scope = { baseUrl };
  const zaken = await services.zaken.list(scope, uuids);
  const bundles = new Map<string, ZaakBundle>();
  const urlToUuid = new Map<string, string>();
  for (const zaak of zaken) {
    const bundle: ZaakBundle = { zaak };
    for (const [key] of BUNDLE_LISTS) bundle[key] = [];
    bundle.resultaat = null;
    bundle.audittrail = [];
    bundles.set(String(zaak.uuid), bundle);
    urlToUuid.set(String(zaak.url), String(zaak.uuid));
  }
  const present = [...bundles.keys()];
  // The kinds are read at once: the database answers one while Node parses another.
  const kinds = [...BUNDLE_LISTS, ['resultaat', 'resultaat'] as const];
  const [audit, ...recordLists] = await Promise.all([
    db('audittrail').join('zaak', 'zaak.id', 'audittrail.zaak_id').whereIn('zaak.uuid', present).orderBy('audittrail.id').select('audittrail.*', { zaak_uuid: 'zaak.uuid' }) as Promise<Record<string, unknown>[]>,
    ...kinds.map(([, kind]) => services.zaken.records(scope, kind, present)),
  ]);
  kinds.forEach(([key, kind], i) => {
    for (const record of recordLists[i]) {
      const bundle = bundles.get(urlToUuid.get(zaakUrlOf(kind, record))!);
      if (!bundle) continue;
      if (key === 'resultaat') bundle.resultaat = record;
      else (bundle[key] as Record<string, unknown>[]).push(record);
    }
  });
  for (const row of audit) bundles.get(String(row.zaak_uuid))?.audittrail!.push(renderAuditRow(row));
  return uuids.flatMap((uuid) => (bundles.has(uuid) ? [bundles.get(uuid)!] : []));
}

/** A selection of zaken by the filters of `GET /zaken` (name → value as in a query string). */
export function applyZaakFilters(query: Knex.QueryBuilder, filters: Record<string, string>): Knex.QueryBuilder {
  for (const [name, value] of Object.entries(filters)) {
    const filter = zaakFilters.find((f) => f.name === name);
    if (!filter) throw new Error(`--filter ${name}: GET /zaken has no such filter`);
    const schema = filter.schema as { type?: string };
    filter.apply(query, schema.type === 'array' ? value.split(',') : schema.type === 'boolean' ? value === 'true' : value);
  }
  return query;
}

/** The uuids of the selected zaken, in pages of `pageSize` in id order (hoofdzaken mostly before their deelzaken). */
export async function* selectedZaken(db: Knex, filters: Record<string, string>, pageSize: number): AsyncGenerator<string[]> {
  for (let after = 0; ; ) {
    const query = db('zaak').where('zaak.id', '>', after).orderBy('zaak.id').limit(pageSize).select('zaak.id', 'zaak.uuid');
    const rows = (await applyZaakFilters(query, filters)) as { id: number; uuid: string }[];
    if (!rows.length) return;
    yield rows.map((row) => row.uuid);
    after = Number(rows[rows.length - 1].id);
  }
}

/** Every bundle of the selection, a page at a time: constant memory however many zaken there are. */
export async function* exportBundles(services: RegistryServices, baseUrl: string, filters: Record<string, string> = {}, pageSize = 250): AsyncGenerator<ZaakBundle> {
  // The next page is read while this one is written out: two pages in memory at most.
  let pending: Promise<ZaakBundle[]> | undefined;
  for await (const uuids of selectedZaken(services.storage.knex, filters, pageSize)) {
    const next = readBundles(services, baseUrl, uuids);
    // A page's failure is thrown where it is awaited; until then it must not count as unhandled.
    next.catch(() => undefined);
    if (pending) yield* await pending;
    pending = next;
  }
  if (pending) yield* await pending;
}
