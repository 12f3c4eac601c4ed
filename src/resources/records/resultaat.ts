import { columnFilter, type ZaakRecordDefinition } from '../shared/records.js';
import { BIJWERKEN, LEZEN } from './scopes.js';

/** Resultaat: one per zaak. */
export const resultaatDefinition: ZaakRecordDefinition = {
  name: 'resultaat',
  table: 'resultaat',
  path: '/resultaten',
  tag: 'resultaten',
  component: 'Resultaat',
  label: 'RESULTAAT',
  actions: ['list', 'create', 'retrieve', 'headers', 'update', 'partial_update', 'destroy'],
  scopes: { read: LEZEN, create: BIJWERKEN, update: BIJWERKEN, destroy: BIJWERKEN },
  paginated: true,
  fields: [
    { field: 'resultaattype', column: 'resultaattype' },
    { field: 'toelichting', column: 'toelichting' },
  ],
  filters: [columnFilter('resultaat', 'resultaattype', 'resultaattype', 'URL-referentie naar het RESULTAATTYPE.', { type: 'string', format: 'uri' })],
  unique: { resultaat_zaak_unique: { name: 'zaak', code: 'unique', reason: 'Deze zaak heeft al een resultaat.' } },
  weergave: (resultaat) => `Resultaat (${String(resultaat.resultaattype)})`,
};
