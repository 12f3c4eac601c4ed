import { ProblemError, invalidParam, validationError } from '../../../problem.js';
import { validate } from '../../../schema/validate.js';
import type { ChangeOrigin } from '../../audittrail/record.js';
import type { ZaakRow } from '../../zaak/columns.js';
import { findZaakByUuid } from '../../zaak/repository.js';
import { localZaakUuid, UUID_PATTERN } from '../references.js';
import type { RecordRow, RecordWriter, RecordWriteScope } from './definition.js';
import type { RecordKind } from './kind.js';
import type { RecordWrites } from './writes.js';
import { ZAAK_UNCHANGEABLE } from './request-steps.js';

/** Writes of a record kind without a request, in the caller's transaction (`services.zaken`). */
export function recordWriter(kind: RecordKind, writes: RecordWrites): RecordWriter {
  const { def, nested, zaakField, bodySchema, patchSchema, render, findRow, variantErrors } = kind;
  const { insertRecord, updateRecord, deleteRecord } = writes;
  const serviceOrigin = (scope: RecordWriteScope, action: ChangeOrigin['action'], status: number): ChangeOrigin => ({
    tx: scope.tx,
    baseUrl: scope.baseUrl,
    action,
    source: 'service',
    status,
    actor: scope.actor ?? { clientId: 'zaakregister', applicationLabel: 'zaakregister (service)' },
  });

  /** The record a service call names by URL or uuid, locked for the rest of the transaction. */
  async function lockedRecord(scope: RecordWriteScope, record: string): Promise<RecordRow> {
    const uuid = UUID_PATTERN.test(record) ? record.toLowerCase() : recordUuid(scope.baseUrl, record);
    const row = uuid ? await findRow(scope.tx, uuid, undefined, true) : undefined;
    if (!row) throw new ProblemError('not_found', { detail: `${def.label} niet gevonden.` });
    return row;
  }

  function recordUuid(baseUrl: string, url: string): string | undefined {
    const [prefix, suffix = ''] = `${baseUrl}${def.path}/`.split('{zaak_uuid}');
    if (!url.startsWith(prefix)) return undefined;
    const rest = url.slice(prefix.length);
    const uuid = nested ? rest.slice(rest.indexOf(suffix) + suffix.length) : rest;
    return UUID_PATTERN.test(uuid) ? uuid.toLowerCase() : undefined;
  }

  /** Checks and derivations of a service write: the schema, the definition's rules and `prepare`. */
  async function prepareServiceWrite(scope: RecordWriteScope, data: Record<string, unknown>, zaak: ZaakRow, current?: { row: RecordRow; record: Record<string, unknown> }) {
    const fields = { ...data };
    delete fields[zaakField];
    const errors = [
      ...validate(current ? patchSchema : bodySchema, { ...fields, [zaakField]: `${scope.baseUrl}/zaken/${zaak.uuid}` }),
      ...variantErrors({ ...current?.record, ...fields }),
      ...(def.check?.({ ...current?.record, ...fields }) ?? []),
    ];
    if (errors.length) throw validationError(errors);
    const columns = (await def.prepare?.(fields, { ctx: { ...scope, principal: undefined }, db: scope.tx, creating: !current, zaak, current: current?.row })) ?? {};
    return { fields, columns };
  }

  async function zaakOfServiceWrite(scope: RecordWriteScope, data: Record<string, unknown>): Promise<ZaakRow> {
    const url = data[zaakField];
    const uuid = typeof url === 'string' ? (UUID_PATTERN.test(url) ? url.toLowerCase() : localZaakUuid(scope.baseUrl, url)) : undefined;
    const zaak = uuid ? await findZaakByUuid(scope.tx, uuid) : undefined;
    if (!zaak) throw invalidParam(zaakField, 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    return zaak;
  }

  return {
    async create(scope, data) {
      const zaak = await zaakOfServiceWrite(scope, data);
      const { fields, columns } = await prepareServiceWrite(scope, data, zaak);
      return insertRecord(serviceOrigin(scope, 'create', 201), zaak, fields, columns);
    },
    async update(scope, record, data) {
      const row = await lockedRecord(scope, record);
      const refused = def.changeErrors?.(row) ?? [];
      if (refused.length) throw validationError(refused);
      const before = (await render(scope.tx, [row], scope.baseUrl))[0];
      const zaak = zaakField in data ? await zaakOfServiceWrite(scope, data) : (await findZaakByUuid(scope.tx, row.zaak_uuid))!;
      if (def.staysWithZaak && zaak.id !== row.zaak_id) throw validationError([ZAAK_UNCHANGEABLE]);
      const { fields, columns } = await prepareServiceWrite(scope, data, zaak, { row, record: before });
      return updateRecord(serviceOrigin(scope, 'partial_update', 200), zaak, row.id, before, fields, columns);
    },
    async destroy(scope, record) {
      const row = await lockedRecord(scope, record);
      const before = (await render(scope.tx, [row], scope.baseUrl))[0];
      const zaak = (await findZaakByUuid(scope.tx, row.zaak_uuid))!;
      await deleteRecord(serviceOrigin(scope, 'destroy', 204), zaak, row.id, before);
    },
  };
}
