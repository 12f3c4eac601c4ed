import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ChangeAction, RequestContext, ResourceChange } from '../../plugin.js';
import type { ChangeActor } from '../../plugin-types.js';
import { insertRow } from '../../storage/named-statement.js';
import { DEFERRED_WRITE } from '../../storage/statement-batching.js';
export type { ChangeActor };

/** What changed, for one audit trail row and one `resourceChanged` announcement. */
export interface AuditChange {
  /** Internal id of the zaak the trail belongs to, or an expression for it (a zaak inserted in the same round trip). */
  zaakId: number | Knex.Raw;
  /** URL of that zaak. */
  hoofdObject: string;
  /** That zaak's own fields (after the change; before it when it is destroyed). */
  zaak: Record<string, unknown>;
  /** `zaak`, `status`, `rol`, ... */
  resource: string;
  resourceUrl: string;
  resourceWeergave: string;
  /** The representation before the change (null when created). */
  oud: Record<string, unknown> | null;
  /** The representation after the change (null when destroyed). */
  nieuw: Record<string, unknown> | null;
}

/** Who made a change and how: from the request, or given by the code calling the service layer. */
export interface ChangeOrigin {
  tx: Knex.Transaction;
  baseUrl: string;
  action: ChangeAction;
  source: ResourceChange['source'];
  /** The audit trail's `resultaat`: the HTTP status the change answers with. */
  status: number;
  actor: ChangeActor;
  ctx?: RequestContext;
}

export type AnnounceChange = (change: ResourceChange) => Promise<void>;

export const ACTIE_WEERGAVE: Record<string, string> = {
  create: 'Object aangemaakt',
  update: 'Object bijgewerkt',
  partial_update: 'Object deels bijgewerkt',
  destroy: 'Object verwijderd',
};

/** The origin of a request's change, in its transaction. */
export function requestOrigin(ctx: RequestContext): ChangeOrigin {
  const principal = ctx.principal;
  return {
    tx: ctx.tx!,
    baseUrl: ctx.baseUrl,
    action: ctx.operation.action as ChangeAction,
    source: 'request',
    status: ctx.response.status,
    actor: { ...principal, reason: ctx.req.get('x-audit-toelichting') ?? '' },
    ctx,
  };
}

/**
 * Records a change in its transaction: one audit trail row, then the `resourceChanged` hooks. Both
 * commit or roll back with the change itself.
 */
export async function recordChange(origin: ChangeOrigin, change: AuditChange, announce: AnnounceChange): Promise<void> {
  const { actor, action } = origin;
  await insertRow(origin.tx, 'audittrail', {
    uuid: randomUUID(),
    zaak_id: change.zaakId,
    bron: 'zrc', // BronEnum of the contract
    applicatie_id: (actor.clientId ?? '').slice(0, 100),
    applicatie_weergave: (actor.applicationLabel ?? '').slice(0, 200),
    gebruikers_id: (actor.userId ?? '').slice(0, 255),
    gebruikers_weergave: (actor.userRepresentation ?? '').slice(0, 255),
    actie: action,
    actie_weergave: ACTIE_WEERGAVE[action] ?? action,
    resultaat: origin.status,
    hoofd_object: change.hoofdObject,
    resource: change.resource,
    resource_url: change.resourceUrl,
    toelichting: actor.reason ?? '',
    resource_weergave: change.resourceWeergave.slice(0, 200),
    wijzigingen: JSON.stringify({ oud: change.oud, nieuw: change.nieuw }),
  }, DEFERRED_WRITE);
  await announce(announcement(origin, change));
}

export function announcement(origin: ChangeOrigin, change: Omit<AuditChange, 'zaakId' | 'resourceWeergave'>): ResourceChange {
  return {
    tx: origin.tx,
    baseUrl: origin.baseUrl,
    resource: change.resource,
    action: origin.action,
    resourceUrl: change.resourceUrl,
    hoofdObject: change.hoofdObject,
    zaak: change.zaak,
    before: change.oud,
    after: change.nieuw,
    source: origin.source,
    ctx: origin.ctx,
  };
}
