import type { Knex } from 'knex';
import type { CoreOperation } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import type { RequestContext } from '../../plugin.js';
import { ProblemError } from '../../problem.js';
import { contractComponents } from '../contract/index.js';
import { iso } from '../shared/references.js';
import { zaakSummary } from '../zaak/representation.js';
import { findZaakByUuid } from '../zaak/repository.js';

const SCOPES = ['audittrails.lezen'];
const ref = { $ref: '#/components/schemas/AuditTrail' };

/** An audit trail row as clients see it. */
export function renderAuditRow(row: Record<string, unknown>): Record<string, unknown> {
  return {
    uuid: row.uuid,
    bron: row.bron,
    applicatieId: row.applicatie_id,
    applicatieWeergave: row.applicatie_weergave,
    gebruikersId: row.gebruikers_id,
    gebruikersWeergave: row.gebruikers_weergave,
    actie: row.actie,
    actieWeergave: row.actie_weergave,
    resultaat: row.resultaat,
    hoofdObject: row.hoofd_object,
    resource: row.resource,
    resourceUrl: row.resource_url,
    toelichting: row.toelichting,
    resourceWeergave: row.resource_weergave,
    aanmaakdatum: iso(row.aanmaakdatum),
    wijzigingen: row.wijzigingen,
  };
}

/** The zaak of the path, or 404; authorization is decided on it. */
async function loadZaak(ctx: RequestContext): Promise<number> {
  const zaak = await findZaakByUuid(ctx.db, ctx.params.zaak_uuid);
  if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
  ctx.zaak = zaakSummary(zaak, ctx.baseUrl);
  return zaak.id;
}

const trail = (db: Knex, zaakId: number) => db('audittrail').where({ zaak_id: zaakId });
const zaakIds = new WeakMap<RequestContext, number>();

export const audittrailOpenApi: OpenApiFragment = {
  components: { schemas: { AuditTrail: contractComponents.AuditTrail, Wijzigingen: contractComponents.Wijzigingen, BronEnum: contractComponents.BronEnum } },
};

/** `/zaken/{zaak_uuid}/audittrail`: every change to the zaak and its records, oldest first. */
export function audittrailOperations(): CoreOperation[] {
  const common = { resource: 'audittrail', write: false, scopes: SCOPES } as const;
  return [
    {
      ...common,
      id: 'audittrail_list',
      method: 'get',
      path: '/zaken/{zaak_uuid}/audittrail',
      action: 'list',
      load: async (ctx) => void zaakIds.set(ctx, await loadZaak(ctx)),
      async execute(ctx) {
        const rows = await trail(ctx.db, zaakIds.get(ctx)!).orderBy('id');
        ctx.response.body = rows.map(renderAuditRow);
      },
      openapi: { summary: 'Alle audit trail regels behorend bij de ZAAK.', tags: ['zaken'], successStatus: 200, responseSchema: { type: 'array', items: ref } },
    },
    {
      ...common,
      id: 'audittrail_retrieve',
      method: 'get',
      path: '/zaken/{zaak_uuid}/audittrail/{uuid}',
      action: 'retrieve',
      load: async (ctx) => void zaakIds.set(ctx, await loadZaak(ctx)),
      async execute(ctx) {
        const row = await trail(ctx.db, zaakIds.get(ctx)!).where({ uuid: ctx.params.uuid }).first();
        if (!row) throw new ProblemError('not_found', { detail: 'Audit trail regel niet gevonden.' });
        ctx.response.body = renderAuditRow(row);
      },
      openapi: { summary: 'Een specifieke audit trail regel opvragen.', tags: ['zaken'], successStatus: 200, responseSchema: ref, head: false },
    },
  ];
}
