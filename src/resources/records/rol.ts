import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { Knex } from 'knex';
import type { RecordRow, ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { catalogReference } from '../shared/catalog-reference.js';
import { ROL_IDENTIFICATION_FILTERS } from '../zaak/filters.js';
import { BIJWERKEN, LEZEN } from './scopes.js';

const uri = { type: 'string', format: 'uri' };

/**
 * Rol: who is involved in a zaak and how; omschrijving and omschrijvingGeneriek come from the roltype.
 * A rol stays with its zaak (the statussen it set are that zaak's), and a PUT replaces it whole: an
 * identification left out is cleared, never kept for another betrokkene or betrokkeneType.
 */
export const rolDefinition: ZaakRecordDefinition = {
  name: 'rol',
  table: 'rol',
  path: '/rollen',
  tag: 'rollen',
  component: 'Rol',
  label: 'ROL',
  actions: CORE_OPERATIONS.rol,
  descriptions: {
    update:
      '**Validatieregel**: indien opgegeven, dan wordt `betrokkeneIdentificatie` gevalideerd tegen de betrokkeneType discriminator.\n\n' +
      'De ROL wordt in zijn geheel vervangen: velden die niet meegestuurd worden, worden leeggemaakt. De `zaak` kan niet gewijzigd worden.',
  },
  scopes: { read: LEZEN, create: BIJWERKEN, update: BIJWERKEN, destroy: BIJWERKEN },
  paginated: true,
  staysWithZaak: true,
  replacedByPut: true,
  fields: [
    { field: 'betrokkene', column: 'betrokkene' },
    { field: 'betrokkeneType', column: 'betrokkene_type' },
    { field: 'afwijkendeNaamBetrokkene', column: 'afwijkende_naam_betrokkene' },
    { field: 'roltype', column: 'roltype' },
    { field: 'omschrijving', column: 'omschrijving' },
    { field: 'omschrijvingGeneriek', column: 'omschrijving_generiek' },
    { field: 'roltoelichting', column: 'roltoelichting' },
    { field: 'registratiedatum', column: 'registratiedatum', kind: 'timestamp' },
    { field: 'indicatieMachtiging', column: 'indicatie_machtiging' },
    { field: 'contactpersoonRol', column: 'contactpersoon_rol', kind: 'json' },
    { field: 'betrokkeneIdentificatie', column: 'betrokkene_identificatie', kind: 'json' },
  ],
  filters: [
    columnFilter('rol', 'betrokkene', 'betrokkene', 'URL-referentie naar een betrokkene gerelateerd aan de ZAAK.', uri),
    columnFilter('rol', 'betrokkeneType', 'betrokkene_type', 'Type van de betrokkene.', {
      type: 'string',
      enum: ['natuurlijk_persoon', 'niet_natuurlijk_persoon', 'vestiging', 'organisatorische_eenheid', 'medewerker'],
    }),
    ...ROL_IDENTIFICATION_FILTERS.map(([suffix, type, key, maxLength]) => ({
      name: `betrokkeneIdentificatie__${suffix}`,
      description: `Filter op ${key} van een betrokkene van het type ${type}.`,
      schema: maxLength ? { type: 'string', maxLength } : { type: 'string' },
      apply: (query: Knex.QueryBuilder, value: unknown) =>
        void query.where('rol.betrokkene_type', type).whereRaw(`rol.betrokkene_identificatie ->> '${key}' = ?`, [String(value)]),
    })),
    columnFilter('rol', 'roltype', 'roltype', 'URL-referentie naar een roltype binnen het ZAAKTYPE van de ZAAK.', uri),
    columnFilter('rol', 'omschrijving', 'omschrijving', 'Omschrijving van de aard van de ROL, afgeleid uit het ROLTYPE.', { type: 'string', maxLength: 100 }),
    columnFilter('rol', 'omschrijvingGeneriek', 'omschrijving_generiek', 'Algemeen gehanteerde benaming van de aard van de ROL.', {
      type: 'string',
      enum: ['adviseur', 'behandelaar', 'belanghebbende', 'beslisser', 'initiator', 'klantcontacter', 'zaakcoordinator', 'mede_initiator'],
    }),
  ],
  variant: { discriminator: 'betrokkeneType', field: 'betrokkeneIdentificatie' },
  check(rol) {
    if (rol.betrokkene || rol.betrokkeneIdentificatie) return [];
    return [{ name: 'nonFieldErrors', code: 'invalid-betrokkene', reason: 'betrokkene of betrokkeneIdentificatie moet opgegeven zijn.' }];
  },
  async prepare(data, { ctx }) {
    if (!('roltype' in data)) return; // a service update without it keeps the roltype and what came from it
    const roltype = await catalogReference(ctx, 'roltype', String(data.roltype), 'roltype');
    data.omschrijving = String(roltype.omschrijving ?? '');
    data.omschrijvingGeneriek = String(roltype.omschrijvingGeneriek ?? '');
  },
  async derive(db, rows, baseUrl) {
    const statussen = rows.length
      ? ((await db('status').whereIn('gezetdoor_id', rows.map((r) => r.id)).orderBy('id').select('gezetdoor_id', 'uuid')) as { gezetdoor_id: number; uuid: string }[])
      : [];
    const byRol = new Map<number, string[]>();
    for (const s of statussen) byRol.set(s.gezetdoor_id, [...(byRol.get(s.gezetdoor_id) ?? []), `${baseUrl}/statussen/${s.uuid}`]);
    return (row: RecordRow) => ({ statussen: byRol.get(row.id) ?? [] });
  },
  // No status can name a rol as its `gezetdoor` before the rol exists: a created rol is read back from nothing.
  inserted: { returning: {}, derive: () => ({ statussen: [] }) },
  unique: {
    rol_zaak_single_role_unique: {
      name: 'roltype',
      code: 'max-occurences',
      reason: 'Een zaak kan maar één rol met deze generieke omschrijving (initiator of zaakcoördinator) hebben.',
    },
  },
  weergave: (rol) => `${String(rol.omschrijving || rol.omschrijvingGeneriek)} (${String(rol.betrokkeneType)})`,
};
