import type { Operation } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import { zaakRecordResource } from '../shared/records.js';
import { klantcontactDefinition } from './klantcontact.js';
import { zaakbesluitDefinition, zaakcontactmomentDefinition, zaakverzoekDefinition } from './links.js';
import { resultaatDefinition } from './resultaat.js';
import { rolDefinition } from './rol.js';
import { statusDefinition } from './status.js';
import { zaakeigenschapDefinition } from './zaakeigenschap.js';
import { zaakinformatieobjectDefinition } from './zaakinformatieobject.js';
import { zaakobjectDefinition } from './zaakobject.js';

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
];

export function zaakRecordOperations(): { operations: Operation[]; fragments: OpenApiFragment[] } {
  const resources = ZAAK_RECORD_DEFINITIONS.map(zaakRecordResource);
  return { operations: resources.flatMap((r) => r.operations), fragments: resources.map((r) => r.openapi) };
}
