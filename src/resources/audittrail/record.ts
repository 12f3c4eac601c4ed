import { randomUUID } from 'node:crypto';
import type { RequestContext } from '../../plugin.js';

/** What changed, for one audit trail row; the request supplies who, how and why. */
export interface AuditChange {
  /** Internal id of the zaak the trail belongs to. */
  zaakId: number;
  /** URL of that zaak. */
  hoofdObject: string;
  /** `zaak`, `status`, `rol`, ... */
  resource: string;
  resourceUrl: string;
  resourceWeergave: string;
  /** The representation before the change (null when created). */
  oud: Record<string, unknown> | null;
  /** The representation after the change (null when destroyed). */
  nieuw: Record<string, unknown> | null;
}

export const ACTIE_WEERGAVE: Record<string, string> = {
  create: 'Object aangemaakt',
  update: 'Object bijgewerkt',
  partial_update: 'Object deels bijgewerkt',
  destroy: 'Object verwijderd',
};

/** Writes one audit trail row in the request's transaction: it commits or rolls back with the change. */
export async function recordAudit(ctx: RequestContext, change: AuditChange): Promise<void> {
  const principal = ctx.principal;
  const action = ctx.operation.action;
  await ctx.tx!('audittrail').insert({
    uuid: randomUUID(),
    zaak_id: change.zaakId,
    bron: 'zrc', // BronEnum of the contract
    applicatie_id: (principal?.clientId ?? '').slice(0, 100),
    applicatie_weergave: (principal?.applicationLabel ?? '').slice(0, 200),
    gebruikers_id: (principal?.userId ?? '').slice(0, 255),
    gebruikers_weergave: (principal?.userRepresentation ?? '').slice(0, 255),
    actie: action,
    actie_weergave: ACTIE_WEERGAVE[action] ?? action,
    resultaat: ctx.response.status,
    hoofd_object: change.hoofdObject,
    resource: change.resource,
    resource_url: change.resourceUrl,
    toelichting: ctx.req.get('x-audit-toelichting') ?? '',
    resource_weergave: change.resourceWeergave.slice(0, 200),
    wijzigingen: JSON.stringify({ oud: change.oud, nieuw: change.nieuw }),
  });
}
