import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { RecordFilter, ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { ALLEEN_BIJWERKEN, LEZEN } from './scopes.js';

/**
 * A zaak's link to a record of another registry (a URL, nothing more): linked and unlinked with
 * `zaken.bijwerken`, listed as a bare array, never changed in place.
 */
function linkDefinition(link: {
  name: 'zaakcontactmoment' | 'zaakverzoek' | 'zaakbesluit';
  path: string;
  tag: string;
  component: string;
  label: string;
  /** The field holding the other registry's URL; also its column. */
  field: string;
  /** Whether `?<field>=` filters the list (the nested besluiten list has no filters). */
  filtered: boolean;
  deprecated?: boolean;
}): ZaakRecordDefinition {
  const filters: RecordFilter[] = link.filtered
    ? [columnFilter(link.name, link.field, link.field, `URL-referentie naar het ${link.field.toUpperCase()}.`, { type: 'string', format: 'uri' })]
    : [];
  return {
    name: link.name,
    table: link.name,
    path: link.path,
    tag: link.tag,
    component: link.component,
    label: link.label,
    actions: CORE_OPERATIONS[link.name],
    scopes: { read: LEZEN, create: ALLEEN_BIJWERKEN, destroy: ALLEEN_BIJWERKEN },
    paginated: false,
    deprecated: link.deprecated,
    fields: [{ field: link.field, column: link.field }],
    filters,
    weergave: (record) => String(record[link.field]),
  };
}

/** ZaakContactmoment: a contact moment (in a Contactmomenten API) about the zaak. */
export const zaakcontactmomentDefinition = linkDefinition({
  name: 'zaakcontactmoment',
  path: '/zaakcontactmomenten',
  tag: 'zaakcontactmomenten',
  component: 'ZaakContactMoment',
  label: 'ZAAKCONTACTMOMENT',
  field: 'contactmoment',
  filtered: true,
});

/** ZaakVerzoek: a request (in a Verzoeken API) that led to or concerns the zaak. */
export const zaakverzoekDefinition = linkDefinition({
  name: 'zaakverzoek',
  path: '/zaakverzoeken',
  tag: 'zaakverzoeken',
  component: 'ZaakVerzoek',
  label: 'ZAAK-VERZOEK',
  field: 'verzoek',
  filtered: true,
  // Deprecated in the Zaken API 1.8.0 contract.
  deprecated: true,
});

/** ZaakBesluit: a decision (in a Besluiten API) taken in the zaak; the Besluiten API keeps it in step. */
export const zaakbesluitDefinition = linkDefinition({
  name: 'zaakbesluit',
  path: '/zaken/{zaak_uuid}/besluiten',
  tag: 'zaken',
  component: 'ZaakBesluit',
  label: 'ZAAKBESLUIT',
  field: 'besluit',
  filtered: false,
});
