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

/**
 * Writes one bundle (already rewritten to this registry's URLs) in `tx`, keeping every uuid,
 * identificatie, timestamp and archive field as given: no derivation, no closing rules, no "now".
 * Adds the source audit trail and one provenance row. The zaak gets the `id` given (reserved in input
 * order: lists ordered by id, such as a hoofdzaak's deelzaken, keep the source's order). Returns it.
 */
export async function writeBundle(tx: Knex.Transaction, bundle: ZaakBundle, baseUrl: string, provenance: Provenance, id: number): Promise<number> {
  const zaak = bundle.zaak;
  const zaakUuid = checkedUuid(zaak.uuid, 'zaak.uuid');
  const zaakUrl = `${baseUrl}/zaken/${zaakUuid}`;
  const hoofdzaak = zaak.hoofdzaak ? (uuidOfUrl(zaak.hoofdzaak) ?? '00000000-0000-0000-0000-000000000000') : null;
  const zaakRow = { ...zaakColumns(zaak), id, uuid: zaakUuid };
  const zaakId = id;
  if (hoofdzaak) {
    // The hoofdzaak's id is looked up by the insert itself; none found means it is not imported yet.
    const [{ hoofdzaak_id: hoofdzaakId }] = (await tx('zaak')
      .insert({ ...zaakRow, hoofdzaak_id: tx('zaak').where({ uuid: hoofdzaak }).select('id') })
      .returning(['hoofdzaak_id'])) as { hoofdzaak_id: number | null }[];
    if (hoofdzaakId === null) throw new BundleRefused('deferred', `hoofdzaak ${String(zaak.hoofdzaak)} is not in this registry (yet)`);
  } else {
    // Nothing is read from its answer: it travels with the bundle's next statement (a refusal fails that one).
    await tx('zaak').insert({ ...zaakRow, hoofdzaak_id: null }).options(DEFERRED_WRITE);
  }
  const all = recordsOf(bundle);
  // Only the ids of records that other records of the bundle link to are read back.
  const linkedTo = new Set<string>();
  for (const [kind, records] of all) {
    if (kind === 'status' && records.some((record) => record.gezetdoor)) linkedTo.add('rol');
    if (kind === 'zaakinformatieobject' && records.some((record) => record.status)) linkedTo.add('status');
  }
  const ids = new Map<string, Map<string, number>>();
  for (const [kind, records] of all) {
    if (!records.length) continue;
    const definition = KINDS.get(kind)!;
    const zaakField = definition.zaakField;
    const rows = records.map((record, i) => {
      const path = `${kind}[${i}]`;
      const owner = zaakField in record ? uuidOfUrl(record[zaakField]) : uuidOfUrl(/^(.*\/zaken\/[^/]+)\//.exec(String(record.url))?.[1]);
      if (owner !== zaakUuid) throw new BundleRefused('failed', `${path}.${zaakField}: not this bundle's zaak`);
      return { uuid: checkedUuid(record.uuid, `${path}.uuid`), zaak_id: zaakId, ...definition.toColumns(record), ...links(kind, record, ids, path) };
    });
    if (!linkedTo.has(kind)) {
      await tx(definition.def.table).insert(rows).options(DEFERRED_WRITE);
      continue;
    }
    const inserted = (await tx(definition.def.table).insert(rows).returning(['id', 'uuid'])) as { id: number; uuid: string }[];
    ids.set(kind, new Map(inserted.map((row) => [row.uuid, Number(row.id)])));
  }
  const trail = bundle.audittrail ?? [];
  trail.forEach((row, i) => {
    if (row.hoofdObject !== zaakUrl) throw new BundleRefused('failed', `audittrail[${i}].hoofdObject: ${String(row.hoofdObject)} is not the zaak ${zaakUrl}`);
    checkedUuid(row.uuid, `audittrail[${i}].uuid`);
  });
  const provenanceRow = {
    uuid: randomUUID(),
    zaak_id: zaakId,
    bron: 'zrc',
    applicatie_id: provenance.applicatieId.slice(0, 100),
    gebruikers_id: provenance.gebruikersId.slice(0, 255),
    actie: 'create',
    actie_weergave: 'Object geïmporteerd',
    resultaat: 201,
    hoofd_object: zaakUrl,
    resource: 'zaak',
    resource_url: zaakUrl,
    toelichting: `Import ${provenance.jobId}`,
    resource_weergave: String(zaak.identificatie ?? '').slice(0, 200),
    wijzigingen: JSON.stringify({ oud: null, nieuw: zaak }),
  };
  await tx('audittrail').insert([...trail.map((row) => auditColumns(row, zaakId)), provenanceRow]).options(DEFERRED_WRITE);
  return zaakId;
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
