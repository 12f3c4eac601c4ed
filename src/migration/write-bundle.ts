import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { toColumns as zaakColumns } from '../resources/zaak/columns.js';
import { ZAAK_RECORD_DEFINITIONS } from '../resources/records/index.js';
import { recordKind } from '../resources/shared/zaak-records/kind.js';
import { DEFERRED_WRITE } from '../storage/statement-batching.js';
import { recordsOf, UUID, uuidOfUrl, type ZaakBundle } from './bundle.js';

/** Why a bundle was not written: `deferred` (its hoofdzaak is not there yet), `conflict` or `failed`. */
export class BundleRefused extends Error {
  constructor(
    readonly outcome: 'deferred' | 'conflict' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

const KINDS = new Map(ZAAK_RECORD_DEFINITIONS.map((def) => [def.name, recordKind(def)]));

/** The tables a bundle writes, in an order that satisfies their foreign keys (the zaak first, rollen before statussen, statussen before ZIOs). */
export const TABLE_ORDER: readonly string[] = ['zaak', ...recordsOf({ zaak: {} }).map(([kind]) => KINDS.get(kind)!.def.table), 'audittrail'];

/** The audit trail columns of a row in its API shape. */
function auditColumns(row: Record<string, unknown>, zaakId: number): Record<string, unknown> {
  return {
    uuid: String(row.uuid).toLowerCase(),
    zaak_id: zaakId,
    bron: row.bron ?? 'zrc',
    applicatie_id: row.applicatieId ?? '',
    applicatie_weergave: row.applicatieWeergave ?? '',
    gebruikers_id: row.gebruikersId ?? '',
    gebruikers_weergave: row.gebruikersWeergave ?? '',
    actie: row.actie,
    actie_weergave: row.actieWeergave ?? '',
    resultaat: row.resultaat,
    hoofd_object: row.hoofdObject,
    resource: row.resource,
    resource_url: row.resourceUrl,
    toelichting: row.toelichting ?? '',
    resource_weergave: row.resourceWeergave ?? '',
    aanmaakdatum: row.aanmaakdatum,
    wijzigingen: JSON.stringify(row.wijzigingen ?? { oud: null, nieuw: null }),
  };
}

function checkedUuid(value: unknown, path: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new BundleRefused('failed', `${path}: no uuid`);
  // Any RFC 4122 version and variant is kept as it is: only its case is made canonical.
  return value.toLowerCase();
}

/** Who wrote the import, for its provenance row in each zaak's audit trail. */
export interface Provenance {
  jobId: string;
  applicatieId: string;
  gebruikersId: string;
}

/** The rows of one bundle, table by table in the order they are written (the zaak first, the audit trail last). */
export interface BundleRows {
  zaak: Record<string, unknown>;
  tables: [table: string, rows: Record<string, unknown>[]][];
}

/**
 * The rows of one bundle (already rewritten to this registry's URLs), keeping every uuid,
 * identificatie, timestamp and archive field as given: no derivation, no closing rules, no "now".
 * Adds the source audit trail and one provenance row. The zaak gets the `id` given, and each rol and
 * status one from `nextId` (reserved from their sequences in input order: lists ordered by id keep the
 * source's order, and a status names its `gezetdoor` rol by an id known before anything is stored).
 * Throws `BundleRefused` for a bundle that cannot be stored as it is.
 */
export function bundleRows(bundle: ZaakBundle, baseUrl: string, provenance: Provenance, id: number, hoofdzaakId: unknown, nextId: (kind: 'rol' | 'status') => number): BundleRows {
  const zaak = bundle.zaak;
  const zaakUuid = checkedUuid(zaak.uuid, 'zaak.uuid');
  const zaakUrl = `${baseUrl}/zaken/${zaakUuid}`;
  const zaakRow = { ...zaakColumns(zaak), id, uuid: zaakUuid, hoofdzaak_id: hoofdzaakId };
  const ids = new Map<string, Map<string, number>>();
  const tables: BundleRows['tables'] = [];
  for (const [kind, records] of recordsOf(bundle)) {
    if (!records.length) continue;
    const definition = KINDS.get(kind)!;
    const zaakField = definition.zaakField;
    const own = kind === 'rol' || kind === 'status' ? new Map<string, number>() : undefined;
    if (own) ids.set(kind, own);
    const rows = records.map((record, i) => {
      const path = `${kind}[${i}]`;
      const owner = zaakField in record ? uuidOfUrl(record[zaakField]) : uuidOfUrl(/^(.*\/zaken\/[^/]+)\//.exec(String(record.url))?.[1]);
      if (owner !== zaakUuid) throw new BundleRefused('failed', `${path}.${zaakField}: not this bundle's zaak`);
      const uuid = checkedUuid(record.uuid, `${path}.uuid`);
      const row: Record<string, unknown> = { uuid, zaak_id: id, ...definition.toColumns(record), ...links(kind, record, ids, path) };
      if (own) {
        row.id = nextId(kind as 'rol' | 'status');
        own.set(uuid, row.id as number);
      }
      return row;
    });
    tables.push([definition.def.table, rows]);
  }
  const trail = bundle.audittrail ?? [];
  trail.forEach((row, i) => {
    if (row.hoofdObject !== zaakUrl) throw new BundleRefused('failed', `audittrail[${i}].hoofdObject: ${String(row.hoofdObject)} is not the zaak ${zaakUrl}`);
    checkedUuid(row.uuid, `audittrail[${i}].uuid`);
  });
  const provenanceRow = {
    uuid: randomUUID(),
    zaak_id: id,
    bron: 'zrc',
    applicatie_id: provenance.applicatieId.slice(0, 100),
    applicatie_weergave: '',
    gebruikers_id: provenance.gebruikersId.slice(0, 255),
    gebruikers_weergave: '',
    actie: 'create',
    actie_weergave: 'Object geïmporteerd',
    resultaat: 201,
    hoofd_object: zaakUrl,
    resource: 'zaak',
    resource_url: zaakUrl,
    toelichting: `Import ${provenance.jobId}`,
    resource_weergave: String(zaak.identificatie ?? '').slice(0, 200),
    // The same columns as the source's rows: a batch writes them all in one statement.
    aanmaakdatum: new Date().toISOString(),
    wijzigingen: JSON.stringify({ oud: null, nieuw: zaak }),
  };
  tables.push(['audittrail', [...trail.map((row) => auditColumns(row, id)), provenanceRow]]);
  return { zaak: zaakRow, tables };
}

/** How many rollen and statussen a bundle has: the ids `bundleRows` takes. */
export const linkedCounts = (bundle: ZaakBundle) => ({ rol: (bundle.rollen as unknown[] | undefined)?.length ?? 0, status: (bundle.statussen as unknown[] | undefined)?.length ?? 0 });

/** Ids from the zaak, rol and status sequences, `counts` of each, in ascending order. */
export async function reserveIds(db: Knex | Knex.Transaction, counts: { zaak: number; rol: number; status: number }): Promise<{ zaak: number[]; rol: number[]; status: number[] }> {
  const series = (table: string) => `array(select nextval(pg_get_serial_sequence('${table}', 'id'))::text from generate_series(1, ?::int) order by 1)`;
  const { rows } = (await db.raw(`select ${series('zaak')} as zaak, ${series('rol')} as rol, ${series('status')} as status`, [counts.zaak, counts.rol, counts.status])) as {
    rows: { zaak: string[]; rol: string[]; status: string[] }[];
  };
  // Ordered as numbers: text sorts "10" before "9".
  const ids = (list: string[]) => list.map(Number).sort((a, b) => a - b);
  return { zaak: ids(rows[0].zaak), rol: ids(rows[0].rol), status: ids(rows[0].status) };
}

/**
 * Writes one bundle in `tx` (see `bundleRows`) with the zaak `id` given. Returns it. A hoofdzaak's id
 * is looked up by the zaak's insert itself; none found means it is not imported yet (`deferred`).
 */
export async function writeBundle(tx: Knex.Transaction, bundle: ZaakBundle, baseUrl: string, provenance: Provenance, id: number): Promise<number> {
  const zaak = bundle.zaak;
  const hoofdzaak = zaak.hoofdzaak ? (uuidOfUrl(zaak.hoofdzaak) ?? '00000000-0000-0000-0000-000000000000') : null;
  const reserved = await reserveIds(tx, { zaak: 0, ...linkedCounts(bundle) });
  const rows = bundleRows(bundle, baseUrl, provenance, id, hoofdzaak ? tx('zaak').where({ uuid: hoofdzaak }).select('id') : null, (kind) => reserved[kind].shift()!);
  if (hoofdzaak) {
    const [{ hoofdzaak_id: hoofdzaakId }] = (await tx('zaak').insert(rows.zaak).returning(['hoofdzaak_id'])) as { hoofdzaak_id: number | null }[];
    if (hoofdzaakId === null) throw new BundleRefused('deferred', `hoofdzaak ${String(zaak.hoofdzaak)} is not in this registry (yet)`);
  } else {
    // Nothing is read from its answer: it travels with the bundle's next statement (a refusal fails that one).
    await tx('zaak').insert(rows.zaak).options(DEFERRED_WRITE);
  }
  for (const [table, tableRows] of rows.tables) await tx(table).insert(tableRows).options(DEFERRED_WRITE);
  return id;
}

/** Columns that link a record to another record of its bundle: a status's `gezetdoor` rol, a ZIO's `status`. */
function links(kind: string, record: Record<string, unknown>, ids: Map<string, Map<string, number>>, path: string): Record<string, unknown> {
  const linked = (field: string, target: string) => {
    if (!record[field]) return null;
    const id = ids.get(target)?.get(uuidOfUrl(record[field]) ?? '');
    if (id === undefined) throw new BundleRefused('failed', `${path}.${field}: ${String(record[field])} is no ${target} of this bundle`);
    return id;
  };
  if (kind === 'status') return { gezetdoor_id: linked('gezetdoor', 'rol') };
  if (kind === 'zaakinformatieobject') return { status_id: linked('status', 'status') };
  return {};
}
