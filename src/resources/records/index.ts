import type { Knex } from 'knex';
import type { Operation } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import type { AnnounceChange } from '../audittrail/record.js';
import type { RecordWriter } from '../shared/zaak-records/definition.js';
import { zaakRecordResource } from '../shared/zaak-records/index.js';
import { klantcontactDefinition } from './klantcontact.js';
import { zaakbesluitDefinition, zaakcontactmomentDefinition, zaakverzoekDefinition } from './links.js';
import { resultaatDefinition } from './resultaat.js';
import { rolDefinition } from './rol.js';
import { statusDefinition } from './status.js';
import { zaakeigenschapDefinition } from './zaakeigenschap.js';
import { zaakinformatieobjectDefinition } from './zaakinformatieobject.js';
import { zaakobjectDefinition } from './zaakobject.js';
import { zaaknotitieDefinition } from './zaaknotitie.js';
import type { ZaakRecordKind } from '../../plugin-types.js';
export type { ZaakRecordKind };

/** Every record resource of a zaak, in the order of the standard's paths. */
export const ZAAK_RECORD_DEFINITIONS = [
  klantcontactDefinition,
  resultaatDefinition,
  rolDefinition,
  statusDefinition,
  zaakcontactmomentDefinition,
  zaakinformatieobjectDefinition,
  zaakobjectDefinition,
  zaakverzoekDefinition,
  zaakbesluitDefinition,
  zaakeigenschapDefinition,
  zaaknotitieDefinition,
];

/** Lists one kind of record for some zaken (by uuid), as clients see them. */
export type RecordLister = (db: Knex | Knex.Transaction, zaakUuids: string[], baseUrl: string) => Promise<Record<string, unknown>[]>;

export interface ZaakRecordResources {
  operations: Operation[];
  fragments: OpenApiFragment[];
  listers: Map<string, RecordLister>;
  writers: Map<string, RecordWriter>;
  /** Per kind, the field of a listed record that holds its zaak's URL (`zaak`, `gerelateerdAan`). */
  zaakFields: Map<string, string>;
}

export function zaakRecordResources(announce: AnnounceChange): ZaakRecordResources {
  const resources = ZAAK_RECORD_DEFINITIONS.map((def) => ({ name: def.name, ...zaakRecordResource(def, announce) }));
  return {
    operations: resources.flatMap((r) => r.operations),
    fragments: resources.map((r) => r.openapi),
    listers: new Map(resources.map((r) => [r.name, r.list])),
    writers: new Map(resources.map((r) => [r.name, r.writer])),
    zaakFields: new Map(resources.map((r) => [r.name, r.zaakField])),
  };
}
