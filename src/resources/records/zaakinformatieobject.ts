import { CORE_OPERATIONS } from '../../operation-ids.js';
import { invalidParam } from '../../problem.js';
import { localUuid } from '../shared/references.js';
import { CREATED_WITH_ZAAK } from './scopes.js';
import type { RecordRow, ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';

/** zrc-004: a zaak's documents are always `hoort_bij`. */
const AARD_RELATIE_WEERGAVE = 'Hoort bij, omgekeerd: kent';

/** ZaakInformatieObject: a document (in a Documenten API) that belongs to the zaak. */
export const zaakinformatieobjectDefinition: ZaakRecordDefinition = {
  name: 'zaakinformatieobject',
  table: 'zaakinformatieobject',
  path: '/zaakinformatieobjecten',
  tag: 'zaakinformatieobjecten',
  component: 'ZaakInformatieObject',
  label: 'ZAAK-INFORMATIEOBJECT',
  actions: CORE_OPERATIONS.zaakinformatieobject,
  scopes: CREATED_WITH_ZAAK,
  paginated: false,
  fields: [
    { field: 'informatieobject', column: 'informatieobject' },
    { field: 'titel', column: 'titel' },
    { field: 'beschrijving', column: 'beschrijving' },
    { field: 'registratiedatum', column: 'registratiedatum', kind: 'timestamp' },
    { field: 'vernietigingsdatum', column: 'vernietigingsdatum', kind: 'timestamp' },
  ],
  filters: [
    columnFilter('zaakinformatieobject', 'informatieobject', 'informatieobject', 'URL-referentie naar het INFORMATIEOBJECT.', { type: 'string', format: 'uri' }),
  ],
  joins: (query) => void query.leftJoin('status as zio_status', 'zio_status.id', 'zaakinformatieobject.status_id').select({ status_uuid: 'zio_status.uuid' }),
  async prepare(data, { ctx, db, zaak }) {
    if (!('status' in data)) return {};
    if (!data.status) return { status_id: null };
    const uuid = localUuid(ctx.baseUrl, '/statussen', String(data.status));
    if (!uuid) throw invalidParam('status', 'no_match', 'Ongeldige hyperlink - geen URL van een status in deze registratie.');
    const status = await db('status').where({ uuid }).first('id', 'zaak_id');
    if (!status) throw invalidParam('status', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    if (status.zaak_id !== zaak.id) throw invalidParam('status', 'invalid', 'De status hoort niet bij de zaak.');
    return { status_id: status.id };
  },
  derive: async (_db, _rows, baseUrl) => (row: RecordRow) => ({
    aardRelatieWeergave: AARD_RELATIE_WEERGAVE,
    status: row.status_uuid ? `${baseUrl}/statussen/${String(row.status_uuid)}` : null,
  }),
  unique: {
    zaakinformatieobject_zaak_informatieobject_unique: {
      name: 'nonFieldErrors',
      code: 'unique',
      reason: 'De velden zaak, informatieobject moeten een unieke set zijn.',
    },
  },
  weergave: (zio) => String(zio.titel || zio.informatieobject),
};
