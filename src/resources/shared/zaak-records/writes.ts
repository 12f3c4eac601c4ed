import { randomUUID } from 'node:crypto';
import { ProblemError, validationError } from '../../../problem.js';
import { insertRow, quoteIdentifier } from '../../../storage/named-statement.js';
import { PREPARED } from '../../../storage/statement-batching.js';
import { PG_UNIQUE_VIOLATION } from '../../../storage/types.js';
import { recordChange, type AnnounceChange, type ChangeOrigin } from '../../audittrail/record.js';
import { zaakSummary } from '../../zaak/representation.js';
import type { ZaakRow } from '../../zaak/columns.js';
import type { RecordRow } from './definition.js';
import type { RecordKind } from './kind.js';

/**
 * The writes of a record kind, shared by the API operations and the service layer: the row, its
 * audit trail row and the `resourceChanged` announcement (with `announce`), in the caller's transaction.
 */
export function recordWrites(kind: RecordKind, announce: AnnounceChange) {
  const { def, renderRows, toColumns, renderById } = kind;
  // Named, not `*`: a prepared insert returning `*` fails once a migration adds a column.
  const renderedColumns = ['id', 'uuid', 'zaak_id', ...def.fields.map((field) => field.column)];
  /** What an insert answers: the rendered columns and the definition's derived ones (`inserted.returning`). */
  const insertedReturning = [
    ...renderedColumns.map(quoteIdentifier),
    ...Object.entries(def.inserted?.returning ?? {}).map(([alias, sql]) => `(${sql}) as ${quoteIdentifier(alias)}`),
  ].join(', ');

  function uniqueError(error: unknown): ProblemError | undefined {
    const e = error as { code?: string; constraint?: string };
    const param = e.code === PG_UNIQUE_VIOLATION && e.constraint ? def.unique?.[e.constraint] : undefined;
    return param ? validationError([param]) : undefined;
  }

  /** The audit trail row and the `resourceChanged` announcement of one write. */
  function recordWrite(origin: ChangeOrigin, zaak: ZaakRow, oud: Record<string, unknown> | null, nieuw: Record<string, unknown> | null) {
    const subject = (nieuw ?? oud)!;
    return recordChange(
      origin,
      {
        zaakId: zaak.id,
        hoofdObject: `${origin.baseUrl}/zaken/${zaak.uuid}`,
        zaak: zaakSummary(zaak, origin.baseUrl),
        resource: def.name,
        resourceUrl: String(subject.url),
        resourceWeergave: def.weergave(subject),
        oud,
        nieuw,
      },
      announce,
    );
  }

  async function insertRecord(origin: ChangeOrigin, zaak: ZaakRow, data: Record<string, unknown>, columns: Record<string, unknown>) {
    const { tx, baseUrl } = origin;
    const readBack = !def.inserted && (def.joins || def.derive);
    let row: RecordRow;
    try {
      [row] = await insertRow<RecordRow>(tx, def.table, { uuid: randomUUID(), zaak_id: zaak.id, ...toColumns(data), ...columns }, { returning: readBack ? '"id"' : insertedReturning, ...PREPARED });
    } catch (error) {
      throw uniqueError(error) ?? error;
    }
    const result = readBack
      ? await renderById(tx, baseUrl, row.id)
      : renderRows([{ ...row, zaak_uuid: zaak.uuid }], baseUrl, (inserted) => def.inserted?.derive(inserted, baseUrl) ?? {})[0];
    await recordWrite(origin, zaak, null, result);
    return result;
  }

  async function updateRecord(origin: ChangeOrigin, zaak: ZaakRow, id: number, before: Record<string, unknown>, data: Record<string, unknown>, columns: Record<string, unknown>) {
    try {
      await origin.tx(def.table).where({ id }).update({ zaak_id: zaak.id, ...toColumns(data), ...columns });
    } catch (error) {
      throw uniqueError(error) ?? error;
    }
    const result = await renderById(origin.tx, origin.baseUrl, id);
    await recordWrite(origin, zaak, before, result);
    return result;
  }

  async function deleteRecord(origin: ChangeOrigin, zaak: ZaakRow, id: number, before: Record<string, unknown>) {
    await origin.tx(def.table).where({ id }).delete();
    await recordWrite(origin, zaak, before, null);
  }

  return { insertRecord, updateRecord, deleteRecord };
}

export type RecordWrites = ReturnType<typeof recordWrites>;
