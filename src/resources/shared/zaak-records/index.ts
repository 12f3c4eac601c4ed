import type { Knex } from 'knex';
import type { OpenApiFragment } from '../../../openapi/build.js';
import type { AnnounceChange } from '../../audittrail/record.js';
import { contractComponents } from '../../contract/index.js';
import type { RecordRow, ZaakRecordDefinition } from './definition.js';
import { recordKind } from './kind.js';
import { recordOperations } from './operations.js';
import { requestSteps } from './request-steps.js';
import { recordWriter } from './service-writer.js';
import { recordWrites } from './writes.js';

/** The operations, schemas and helpers of one zaak record resource; changes are announced with `announce`. */
export function zaakRecordResource(def: ZaakRecordDefinition, announce: AnnounceChange) {
  const kind = recordKind(def);
  const { select, render } = kind;
  const writes = recordWrites(kind, announce);
  const operations = recordOperations(kind, requestSteps(kind), writes);
  const writer = recordWriter(kind, writes);

  /** The records of some zaken (by uuid) as clients see them, oldest first. */
  async function list(db: Knex | Knex.Transaction, zaakUuids: string[], baseUrl: string): Promise<Record<string, unknown>[]> {
    if (!zaakUuids.length) return [];
    const rows = (await select(db).whereIn('zaak.uuid', zaakUuids).orderBy(`${def.table}.id`)) as RecordRow[];
    return render(db, rows, baseUrl);
  }

  const openapi: OpenApiFragment = { components: { schemas: contractFragment(def.component, def.requestComponent) } };
  return { operations, openapi, list, writer, zaakField: kind.zaakField };
}

/** The contract's schemas one resource refers to, transitively (served in the OpenAPI document). */
function contractFragment(component: string, requestComponent?: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const visit = (name: string) => {
    if (out[name] || !contractComponents[name]) return;
    out[name] = contractComponents[name];
    for (const match of JSON.stringify(contractComponents[name]).matchAll(/#\/components\/schemas\/([A-Za-z_]+)/g)) visit(match[1]);
  };
  for (const name of [component, requestComponent ?? component]) {
    visit(name);
    visit(`Patched${name}`);
  }
  return out;
}
