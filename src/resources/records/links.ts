import { columnFilter, type ZaakRecordDefinition } from '../shared/records.js';
import { ALLEEN_BIJWERKEN, LEZEN } from './scopes.js';

const uri = { type: 'string', format: 'uri' };

/** ZaakContactmoment: a contact moment (in a Contactmomenten API) about the zaak. */
export const zaakcontactmomentDefinition: ZaakRecordDefinition = {
  name: 'zaakcontactmoment',
  table: 'zaakcontactmoment',
  path: '/zaakcontactmomenten',
  tag: 'zaakcontactmomenten',
  component: 'ZaakContactMoment',
  label: 'ZAAKCONTACTMOMENT',
  actions: ['list', 'create', 'retrieve', 'destroy'],
  scopes: { read: LEZEN, create: ALLEEN_BIJWERKEN, destroy: ALLEEN_BIJWERKEN },
  paginated: false,
  fields: [{ field: 'contactmoment', column: 'contactmoment' }],
  filters: [columnFilter('zaakcontactmoment', 'contactmoment', 'contactmoment', 'URL-referentie naar het CONTACTMOMENT.', uri)],
  weergave: (link) => String(link.contactmoment),
};

/** ZaakVerzoek: a request (in a Verzoeken API) that led to or concerns the zaak. */
export const zaakverzoekDefinition: ZaakRecordDefinition = {
  name: 'zaakverzoek',
  table: 'zaakverzoek',
  path: '/zaakverzoeken',
  tag: 'zaakverzoeken',
  component: 'ZaakVerzoek',
  label: 'ZAAK-VERZOEK',
  actions: ['list', 'create', 'retrieve', 'destroy'],
  scopes: { read: LEZEN, create: ALLEEN_BIJWERKEN, destroy: ALLEEN_BIJWERKEN },
  paginated: false,
  fields: [{ field: 'verzoek', column: 'verzoek' }],
  filters: [columnFilter('zaakverzoek', 'verzoek', 'verzoek', 'URL-referentie naar het VERZOEK.', uri)],
  weergave: (link) => String(link.verzoek),
};

/** ZaakBesluit: a decision (in a Besluiten API) taken in the zaak; the Besluiten API keeps it in step. */
export const zaakbesluitDefinition: ZaakRecordDefinition = {
  name: 'zaakbesluit',
  table: 'zaakbesluit',
  path: '/zaken/{zaak_uuid}/besluiten',
  tag: 'zaken',
  component: 'ZaakBesluit',
  label: 'ZAAKBESLUIT',
  actions: ['list', 'create', 'retrieve', 'destroy'],
  scopes: { read: LEZEN, create: ALLEEN_BIJWERKEN, destroy: ALLEEN_BIJWERKEN },
  paginated: false,
  fields: [{ field: 'besluit', column: 'besluit' }],
  weergave: (link) => String(link.besluit),
};
