import { CORE_OPERATIONS } from '../../operation-ids.js';
import { catalogReference } from '../shared/catalog-reference.js';
import type { ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { BIJWERKEN, LEZEN } from './scopes.js';

/** ZaakEigenschap: the value of one of the zaaktype's eigenschappen; `naam` comes from the eigenschap. */
export const zaakeigenschapDefinition: ZaakRecordDefinition = {
  name: 'zaakeigenschap',
  table: 'zaakeigenschap',
  path: '/zaken/{zaak_uuid}/zaakeigenschappen',
  tag: 'zaken',
  component: 'ZaakEigenschap',
  label: 'ZAAKEIGENSCHAP',
  actions: CORE_OPERATIONS.zaakeigenschap,
  scopes: { read: LEZEN, create: BIJWERKEN, update: BIJWERKEN, destroy: BIJWERKEN },
  paginated: false,
  fields: [
    { field: 'eigenschap', column: 'eigenschap' },
    { field: 'naam', column: 'naam' },
    { field: 'waarde', column: 'waarde' },
  ],
  async prepare(data, { ctx }) {
    if (typeof data.eigenschap !== 'string') return;
    const eigenschap = await catalogReference(ctx, 'eigenschap', data.eigenschap, 'eigenschap');
    data.naam = String(eigenschap.naam ?? '');
  },
  weergave: (eigenschap) => `${String(eigenschap.naam)}: ${String(eigenschap.waarde)}`,
};
