import type { Knex } from 'knex';
import type { InvalidParam } from '../../../problem.js';
import { requestSchema, validate } from '../../../schema/validate.js';
import { contractSchema, variantSchema } from '../../contract/index.js';
import { iso } from '../references.js';
import type { RecordRow, StoredField, ZaakRecordDefinition } from './definition.js';

/** A record kind as its operations and the service layer use it: its request schemas, and how its rows are read and rendered. */
export function recordKind(def: ZaakRecordDefinition) {
  const nested = def.path.includes('{zaak_uuid}');
  const zaakField = def.zaakField ?? 'zaak';
  const schema = contractSchema(def.component);
  // A polymorphic field is declared by the variants only; it comes last, as in the contract's allOf.
  const properties = [...Object.keys(schema.properties as object), ...(def.variant ? [def.variant.field] : [])];
  const fieldsByName = new Map(def.fields.map((f) => [f.field, f]));
  // The request body also carries the polymorphic field, checked against its variant separately.
  const extra = def.variant ? { [def.variant.field]: { type: 'object', nullable: true } } : {};
  // A request schema of its own declares what the representation does not (texts that may not be blank).
  const requestBase = def.requestComponent ? contractSchema(def.requestComponent) : schema;
  const bodySchema = requestSchema(requestBase, { extra });
  const patchSchema = requestSchema(requestBase, { partial: true, extra });
  // A replacing PUT clears the writable stored fields it leaves out (`zaak` it requires).
  const clearedByPut = Object.fromEntries(def.fields.filter((f) => Object.hasOwn(bodySchema.properties as object, f.field)).map((f) => [f.field, null]));
  /** The fields a request writes: as sent; for a PUT of a record it replaces, with what it leaves out cleared. */
  const writtenFields = (body: Record<string, unknown> | undefined, action: string): Record<string, unknown> =>
    def.replacedByPut && action === 'update' ? { ...clearedByPut, ...body } : { ...body };
  const urlOf = (baseUrl: string, row: { uuid: string; zaak_uuid: string }) =>
    `${baseUrl}${def.path.replace('{zaak_uuid}', row.zaak_uuid)}/${row.uuid}`;

  function select(db: Knex | Knex.Transaction): Knex.QueryBuilder {
    const query = db(def.table).join('zaak', 'zaak.id', `${def.table}.zaak_id`).select(`${def.table}.*`, { zaak_uuid: 'zaak.uuid' });
    def.joins?.(query);
    return query;
  }

  /** Representations for a page of rows, fields in the contract's order. */
  async function render(db: Knex | Knex.Transaction, rows: RecordRow[], baseUrl: string): Promise<Record<string, unknown>[]> {
    return renderRows(rows, baseUrl, (await def.derive?.(db, rows, baseUrl)) ?? (() => ({})));
  }

  function renderRows(rows: RecordRow[], baseUrl: string, derived: (row: RecordRow) => Record<string, unknown>): Record<string, unknown>[] {
    return rows.map((row) => {
      const extra = derived(row);
      const out: Record<string, unknown> = {};
      for (const name of properties) {
        if (name === 'url') out.url = urlOf(baseUrl, row);
        else if (name === 'uuid') out.uuid = row.uuid;
        else if (name === zaakField) out[name] = `${baseUrl}/zaken/${row.zaak_uuid}`;
        else if (name in extra) out[name] = extra[name];
        else if (fieldsByName.has(name)) out[name] = fromColumn(row, fieldsByName.get(name)!);
      }
      return out;
    });
  }

  function toColumns(data: Record<string, unknown>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const field of def.fields) {
      if (!(field.field in data)) continue;
      const value = data[field.field];
      if (field.kind === 'json') row[field.column] = value === null || value === undefined ? null : JSON.stringify(value);
      else if (field.kind === 'timestamp') row[field.column] = value ?? null;
      else row[field.column] = value ?? '';
    }
    return row;
  }

  async function findRow(db: Knex | Knex.Transaction, uuid: string, zaakUuid?: string, forUpdate = false): Promise<RecordRow | undefined> {
    const query = select(db).where(`${def.table}.uuid`, uuid);
    if (zaakUuid) query.where('zaak.uuid', zaakUuid);
    if (forUpdate) query.forUpdate(def.table);
    // Planned once per connection: one name per fixed SQL text (see findZaakByUuid).
    query.options({ name: `${def.table}_by_uuid${zaakUuid ? '_of_zaak' : ''}${forUpdate ? '_locked' : ''}` });
    return (await query.first()) as RecordRow | undefined;
  }

  function variantErrors(record: Record<string, unknown>): InvalidParam[] {
    if (!def.variant) return [];
    const value = record[def.variant.field];
    if (value === undefined || value === null) return [];
    const shape = variantSchema(def.component, String(record[def.variant.discriminator]), def.variant.field);
    return shape ? validate(shape, value, def.variant.field) : [];
  }

  async function renderById(db: Knex.Transaction, baseUrl: string, id: number): Promise<Record<string, unknown>> {
    const row = (await select(db).where(`${def.table}.id`, id).first()) as RecordRow;
    return (await render(db, [row], baseUrl))[0];
  }

  return { def, nested, zaakField, schema, bodySchema, patchSchema, writtenFields, select, render, renderRows, toColumns, findRow, renderById, variantErrors };
}

export type RecordKind = ReturnType<typeof recordKind>;

/** A stored field's value as the API shows it. */
function fromColumn(row: RecordRow, field: StoredField): unknown {
  const value = row[field.column];
  if (field.kind === 'timestamp') return iso(value);
  return value ?? null;
}
