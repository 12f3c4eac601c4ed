import { ZAKEN_LEZEN } from '../shared/access.js';

/** Scope combinations the contract requires of the record resources (any one of a list suffices). */
export const LEZEN = [ZAKEN_LEZEN];
/** Links to other registries' records: `zaken.bijwerken` only. */
export const ALLEEN_BIJWERKEN = ['zaken.bijwerken'];
/** Changing a zaak's records: `zaken.bijwerken | zaken.geforceerd-bijwerken`. */
export const BIJWERKEN = ['zaken.bijwerken', 'zaken.geforceerd-bijwerken'];

/** Records a zaak is created with (zaakobjecten, zaakinformatieobjecten): also at creation, and removed with `verwijderen`. */
export const CREATED_WITH_ZAAK = {
  read: LEZEN,
  create: ['zaken.aanmaken', ...BIJWERKEN],
  update: BIJWERKEN,
  destroy: [...BIJWERKEN, 'zaken.verwijderen'],
};
