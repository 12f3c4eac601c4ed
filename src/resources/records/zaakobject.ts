import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { InvalidParam } from '../../problem.js';
import { CREATED_WITH_ZAAK } from './scopes.js';
import type { ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { contractSchema } from '../contract/index.js';

const OBJECT_TYPES = (contractSchema('ObjectTypeEnum').enum as string[]).filter((v) => typeof v === 'string');

function overigeErrors(zaakobject: Record<string, unknown>): InvalidParam[] {
  const overige = zaakobject.objectType === 'overige';
  if (overige && !zaakobject.objectTypeOverige && !zaakobject.objectTypeOverigeDefinitie) {
    return [
      {
        name: 'nonFieldErrors',
        code: 'missing-object-type-overige',
        reason: 'Als `objectType` de waarde "overige" heeft, moet `objectTypeOverige` of `objectTypeOverigeDefinitie` van een waarde voorzien zijn.',
      },
    ];
  }
  if (!overige && (zaakobject.objectTypeOverige || zaakobject.objectTypeOverigeDefinitie)) {
    return [
      {
        name: 'nonFieldErrors',
        code: 'invalid-object-type-overige-usage',
        reason: 'Als `objectType` niet de waarde "overige" heeft, mogen `objectTypeOverige` en `objectTypeOverigeDefinitie` niet van een waarde voorzien zijn.',
      },
    ];
  }
  return [];
}

/**
 * The adres of a terrein_gebouwd_object (also where a huishouden is housed) is identified by
 * `aoaIdentificatie`, or by `oaoIdentificatie`, its misspelled, deprecated name that 1.5.1 clients
 * send: the contract requires neither alone, but one of the two.
 */
function adresIdentificatieErrors(zaakobject: Record<string, unknown>): InvalidParam[] {
  const identificatie = zaakobject.objectIdentificatie as Record<string, any> | null | undefined;
  const [path, adres] =
    zaakobject.objectType === 'terrein_gebouwd_object'
      ? ['objectIdentificatie.adresAanduidingGrp', identificatie?.adresAanduidingGrp]
      : zaakobject.objectType === 'huishouden'
        ? ['objectIdentificatie.isGehuisvestIn.adresAanduidingGrp', identificatie?.isGehuisvestIn?.adresAanduidingGrp]
        : [];
  if (!adres || typeof adres !== 'object' || adres.aoaIdentificatie || adres.oaoIdentificatie) return [];
  return [{ name: `${path}.aoaIdentificatie`, code: 'required', reason: '`aoaIdentificatie` (of het verouderde `oaoIdentificatie`) is verplicht.' }];
}

/** ZaakObject: an object the zaak is about, by URL or by an identification whose shape follows objectType. */
export const zaakobjectDefinition: ZaakRecordDefinition = {
  name: 'zaakobject',
  table: 'zaakobject',
  path: '/zaakobjecten',
  tag: 'zaakobjecten',
  component: 'ZaakObject',
  label: 'ZAAKOBJECT',
  actions: CORE_OPERATIONS.zaakobject,
  scopes: CREATED_WITH_ZAAK,
  paginated: true,
  fields: [
    { field: 'object', column: 'object' },
    { field: 'zaakobjecttype', column: 'zaakobjecttype' },
    { field: 'objectType', column: 'object_type' },
    { field: 'objectTypeOverige', column: 'object_type_overige' },
    { field: 'objectTypeOverigeDefinitie', column: 'object_type_overige_definitie', kind: 'json' },
    { field: 'relatieomschrijving', column: 'relatieomschrijving' },
    { field: 'objectIdentificatie', column: 'object_identificatie', kind: 'json' },
  ],
  filters: [
    columnFilter('zaakobject', 'object', 'object', 'URL-referentie naar de resource die het OBJECT beschrijft.', { type: 'string', format: 'uri' }),
    columnFilter('zaakobject', 'objectType', 'object_type', 'Het type OBJECT gerelateerd aan de ZAAK.', { type: 'string', enum: OBJECT_TYPES }),
  ],
  variant: { discriminator: 'objectType', field: 'objectIdentificatie' },
  check(zaakobject) {
    if (!zaakobject.object && !zaakobject.objectIdentificatie) {
      return [{ name: 'nonFieldErrors', code: 'invalid-zaakobject', reason: 'object of objectIdentificatie moet opgegeven zijn.' }];
    }
    return [...overigeErrors(zaakobject), ...adresIdentificatieErrors(zaakobject)];
  },
  weergave: (zaakobject) => `${String(zaakobject.objectType)}: ${String(zaakobject.object || zaakobject.relatieomschrijving || '')}`,
};
