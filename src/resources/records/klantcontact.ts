import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { BIJWERKEN, LEZEN } from './scopes.js';

/** Klantcontact: a contact with a customer about the zaak (deprecated in favour of zaakcontactmomenten). */
export const klantcontactDefinition: ZaakRecordDefinition = {
  name: 'klantcontact',
  table: 'klantcontact',
  path: '/klantcontacten',
  tag: 'klantcontacten',
  component: 'KlantContact',
  label: 'KLANTCONTACT',
  actions: CORE_OPERATIONS.klantcontact,
  scopes: { read: LEZEN, create: BIJWERKEN },
  paginated: true,
  deprecated: true,
  fields: [
    { field: 'identificatie', column: 'identificatie' },
    { field: 'datumtijd', column: 'datumtijd', kind: 'timestamp' },
    { field: 'kanaal', column: 'kanaal' },
    { field: 'onderwerp', column: 'onderwerp' },
    { field: 'toelichting', column: 'toelichting' },
  ],
  async prepare(data, { db }) {
    if (data.identificatie) return;
    // `KC-00000000042`: from a sequence (fits the 14 characters of the field), unique across processes.
    const { rows } = await db.raw<{ rows: { n: number }[] }>("select nextval('klantcontact_identificatie_seq')::int8 as n");
    data.identificatie = `KC-${String(rows[0].n).padStart(11, '0')}`;
  },
  weergave: (klantcontact) => String(klantcontact.identificatie),
};
