import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { Knex } from 'knex';
import { ProblemError, invalidParam } from '../../problem.js';
import { grantedScopes } from '../shared/access.js';
import { inParallel, localUuid } from '../shared/references.js';
import type { RecordRow, ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { latestStatuses } from '../zaak/relations.js';
import { LEZEN } from './scopes.js';

const ONLY_FIRST_STATUS = 'Met de scope zaken.aanmaken alleen mag enkel de eerste status van een zaak gezet worden.';

const gezetdoorOf = (row: RecordRow, baseUrl: string) => (row.gezetdoor_uuid ? `${baseUrl}/rollen/${String(row.gezetdoor_uuid)}` : '');

/** Status: GET and POST only (a status is history; it is never changed or removed by itself). */
export const statusDefinition: ZaakRecordDefinition = {
  name: 'status',
  table: 'status',
  path: '/statussen',
  tag: 'statussen',
  component: 'Status',
  label: 'STATUS',
  actions: CORE_OPERATIONS.status,
  scopes: { read: LEZEN, create: ['zaken.aanmaken', 'zaken.statussen.toevoegen', 'zaken.heropenen'] },
  paginated: true,
  fields: [
    { field: 'statustype', column: 'statustype' },
    { field: 'datumStatusGezet', column: 'datum_status_gezet', kind: 'timestamp' },
    { field: 'statustoelichting', column: 'statustoelichting' },
  ],
  filters: [
    columnFilter('status', 'statustype', 'statustype', 'URL-referentie naar het STATUSTYPE.', { type: 'string', format: 'uri' }),
    {
      name: 'indicatieLaatstGezetteStatus',
      description: 'Alleen de laatst gezette status van elke zaak (true), of juist de andere (false).',
      schema: { type: 'boolean' },
      apply(query, value) {
        const later = (q: Knex.QueryBuilder) =>
          q
            .select(1)
            .from('status as later')
            .whereRaw('later.zaak_id = status.zaak_id')
            .andWhereRaw('(later.datum_status_gezet, later.id) > (status.datum_status_gezet, status.id)');
        if (value) query.whereNotExists(later);
        else query.whereExists(later);
      },
    },
  ],
  joins: (query) => void query.leftJoin('rol as gezetdoor', 'gezetdoor.id', 'status.gezetdoor_id').select({ gezetdoor_uuid: 'gezetdoor.uuid' }),
  async authorize({ ctx, db, zaak }) {
    // zaken.aanmaken alone (without statussen.toevoegen or heropenen) sets only a zaak's first status.
    // Service-layer writes have no caller to restrict.
    const granted = ctx.principal ? grantedScopes(ctx.principal, { zaaktype: String(zaak.zaaktype), vertrouwelijkheidaanduiding: String(zaak.vertrouwelijkheidaanduiding) }) : 'all';
    const onlyCreate = granted !== 'all' && !granted.has('zaken.statussen.toevoegen') && !granted.has('zaken.heropenen');
    if (onlyCreate && (await db('status').where({ zaak_id: zaak.id }).first('id'))) {
      throw new ProblemError('permission_denied', { detail: ONLY_FIRST_STATUS });
    }
  },
  async prepare(data, { ctx, db, zaak }) {
    if (!data.gezetdoor) return { gezetdoor_id: null };
    const uuid = localUuid(ctx.baseUrl, '/rollen', String(data.gezetdoor));
    if (!uuid) throw invalidParam('gezetdoor', 'no_match', 'Ongeldige hyperlink - geen URL van een rol in deze registratie.');
    const rol = await db('rol').where({ uuid }).first('id', 'zaak_id');
    if (!rol) throw invalidParam('gezetdoor', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    if (rol.zaak_id !== zaak.id) throw invalidParam('gezetdoor', 'invalid', 'De rol hoort niet bij de zaak van de status.');
    return { gezetdoor_id: rol.id };
  },
  async derive(db, rows, baseUrl) {
    const zaakIds = [...new Set(rows.map((r) => r.zaak_id))];
    const [latest, zios] = await inParallel<[{ uuid: string }[], { status_id: number; uuid: string }[]]>(db, [
      async () => (zaakIds.length ? latestStatuses(db, zaakIds) : []),
      async () => (rows.length ? db('zaakinformatieobject').whereIn('status_id', rows.map((r) => r.id)).orderBy('id').select('status_id', 'uuid') : []),
    ]);
    const latestUuids = new Set(latest.map((l) => l.uuid));
    const ziosByStatus = new Map<number, string[]>();
    for (const zio of zios) {
      ziosByStatus.set(zio.status_id, [...(ziosByStatus.get(zio.status_id) ?? []), `${baseUrl}/zaakinformatieobjecten/${zio.uuid}`]);
    }
    return (row: RecordRow) => ({
      indicatieLaatstGezetteStatus: latestUuids.has(row.uuid),
      gezetdoor: gezetdoorOf(row, baseUrl),
      zaakinformatieobjecten: ziosByStatus.get(row.id) ?? [],
    });
  },
  inserted: {
    returning: {
      gezetdoor_uuid: 'select uuid from rol where rol.id = status.gezetdoor_id',
      // The new row has the highest id, so it is the latest unless another is set later (the zaak is locked).
      latest: 'select not exists (select 1 from status later where later.zaak_id = status.zaak_id and later.datum_status_gezet > status.datum_status_gezet)',
    },
    // No zaakinformatieobject can name a status before it exists.
    derive: (row, baseUrl) => ({ indicatieLaatstGezetteStatus: row.latest === true, gezetdoor: gezetdoorOf(row, baseUrl), zaakinformatieobjecten: [] }),
  },
  weergave: (status) => `Status van ${String(status.datumStatusGezet)}`,
};
