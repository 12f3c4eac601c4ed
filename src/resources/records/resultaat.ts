import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { BIJWERKEN, LEZEN } from './scopes.js';

const ONE_PER_ZAAK = { name: 'zaak', code: 'unique', reason: 'Deze zaak heeft al een resultaat.' };

/** Resultaat: one per zaak. */
export const resultaatDefinition: ZaakRecordDefinition = {
  name: 'resultaat',
  table: 'resultaat',
  path: '/resultaten',
  tag: 'resultaten',
  component: 'Resultaat',
  label: 'RESULTAAT',
  actions: CORE_OPERATIONS.resultaat,
  scopes: { read: LEZEN, create: BIJWERKEN, update: BIJWERKEN, destroy: BIJWERKEN },
  paginated: true,
  fields: [
    { field: 'resultaattype', column: 'resultaattype' },
    { field: 'toelichting', column: 'toelichting' },
  ],
  filters: [columnFilter('resultaat', 'resultaattype', 'resultaattype', 'URL-referentie naar het RESULTAATTYPE.', { type: 'string', format: 'uri' })],
  unique: { resultaat_zaak_unique: ONE_PER_ZAAK },
  async conflicts({ db, zaak, current }) {
    if (current?.zaak_id === zaak.id) return [];
    return (await db('resultaat').where('zaak_id', zaak.id).first('id')) ? [ONE_PER_ZAAK] : [];
  },
  weergave: (resultaat) => `Resultaat (${String(resultaat.resultaattype)})`,
};
