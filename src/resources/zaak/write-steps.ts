import type { RequestContext } from '../../plugin.js';
import { ProblemError, invalidParam, validationError, type InvalidParam } from '../../problem.js';
import { referenceError } from '../../remote/errors.js';
import { recordChange, requestOrigin, type AnnounceChange, type AuditChange } from '../audittrail/record.js';
import { ZAKEN_LEZEN, hasAnyScope, type AccessSubject } from '../shared/access.js';
import { geometryErrors } from '../shared/geometry.js';
import { localZaakUuid } from '../shared/references.js';
import { zaakSummary } from './representation.js';
import type { ZaakRow } from './columns.js';
import { findZaakByUuid } from './repository.js';
import { renderZaakRows } from './rendered.js';

function localDate(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** `hoofdzaak` is a local reference: it must be the URL of a zaak in this registry. */
async function resolveHoofdzaak(ctx: RequestContext, url: string): Promise<number> {
  const uuid = localZaakUuid(ctx.baseUrl, url);
  if (!uuid) throw invalidParam('hoofdzaak', 'no_match', 'Ongeldige hyperlink - geen URL van een zaak in deze registratie.');
  const hoofdzaak = await findZaakByUuid(ctx.tx ?? ctx.registry.storage.knex, uuid);
  if (!hoofdzaak) throw invalidParam('hoofdzaak', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
  // Linking to a zaak is only for a client that may see it.
  const subject = { zaaktype: String(hoofdzaak.zaaktype), vertrouwelijkheidaanduiding: String(hoofdzaak.vertrouwelijkheidaanduiding) };
  if (ctx.principal && !hasAnyScope(ctx.principal, subject, [ZAKEN_LEZEN])) {
    throw new ProblemError('permission_denied', { detail: 'Geen toegang tot de hoofdzaak.' });
  }
  return hoofdzaak.id;
}

/**
 * Before the scope check: the zaaktype and vertrouwelijkheidaanduiding the zaak will have, which is
 * what creating or changing it must be authorized for.
 */
export async function loadSubject(ctx: RequestContext, creating: boolean): Promise<void> {
  const data: Record<string, unknown> = { ...ctx.body };
  // The standard: when omitted, the zaaktype's vertrouwelijkheidaanduiding applies.
  const zaaktypeChanged = typeof data.zaaktype === 'string' && data.zaaktype !== ctx.current?.zaaktype;
  if (!data.vertrouwelijkheidaanduiding && (creating || zaaktypeChanged)) {
    try {
      data.vertrouwelijkheidaanduiding = (await ctx.registry.catalog.zaaktype(String(data.zaaktype))).vertrouwelijkheidaanduiding;
    } catch (error) {
      throw referenceError('zaaktype', error);
    }
  } else if (data.vertrouwelijkheidaanduiding === undefined && !creating) {
    delete data.vertrouwelijkheidaanduiding;
  }
  ctx.data = data;
}

/** Once authorized: the checks, defaults and resolved references of the values to store. */
export async function prepareData(ctx: RequestContext, creating: boolean): Promise<void> {
  const data = ctx.data!;
  const errors: InvalidParam[] = [];
  if (data.zaakgeometrie) errors.push(...geometryErrors(data.zaakgeometrie as Record<string, unknown>, 'zaakgeometrie'));
  if (errors.length) throw validationError(errors);
  if (creating) {
    data.registratiedatum ??= localDate();
    data.archiefstatus ??= 'nog_te_archiveren';
  }
  // Resolved now for its 400/403 before any hook runs; the write reuses the answer.
  if ('hoofdzaak' in data) await hoofdzaakColumn(ctx);
}

const resolvedHoofdzaak = new WeakMap<RequestContext, { url: unknown; id: number | null }>();

/** The hoofdzaak's row id for the write; `ctx.data.hoofdzaak` stays the URL that hooks see. */
export async function hoofdzaakColumn(ctx: RequestContext): Promise<{ hoofdzaakId?: number | null }> {
  const data = ctx.data!;
  if (!('hoofdzaak' in data)) return {};
  let resolved = resolvedHoofdzaak.get(ctx);
  if (!resolved || resolved.url !== data.hoofdzaak) {
    resolved = { url: data.hoofdzaak, id: data.hoofdzaak ? await resolveHoofdzaak(ctx, String(data.hoofdzaak)) : null };
    resolvedHoofdzaak.set(ctx, resolved);
  }
  return { hoofdzaakId: resolved.id };
}

export const lockedRows = new WeakMap<RequestContext, ZaakRow>();

/**
 * Inside the write's transaction: the zaak the request changes or removes and a hoofdzaak it links
 * anew, locked in uuid order (the order zrc-rules locks them in) and read again. `ctx.zaak` and
 * `ctx.current` are then the zaak as it is now, and the hoofdzaak's access is decided on it as locked.
 */
export async function lockZaken(ctx: RequestContext): Promise<void> {
  const tx = ctx.tx!;
  const own: string | undefined = ctx.params.uuid;
  const uuidOf = (url: unknown) => (typeof url === 'string' && url ? localZaakUuid(ctx.baseUrl, url) : undefined);
  // A hoofdzaak the zaak already has is left alone, as zrc-rules does: no lock a destroy of it could wait on.
  const linked = uuidOf(ctx.data?.hoofdzaak) !== uuidOf(ctx.current?.hoofdzaak) ? uuidOf(ctx.data?.hoofdzaak) : undefined;
  for (const uuid of [...new Set([own, linked].filter((u): u is string => !!u))].sort()) {
    if (uuid !== own) {
      await findZaakByUuid(tx, uuid, { forUpdate: true });
      continue;
    }
    const row = await findZaakByUuid(tx, uuid, { forUpdate: true, relations: true });
    if (!row) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    ctx.zaak = zaakSummary(row, ctx.baseUrl);
    ctx.current = renderZaakRows([row], ctx.baseUrl)[0];
    lockedRows.set(ctx, row);
  }
  if (linked) {
    resolvedHoofdzaak.delete(ctx);
    await hoofdzaakColumn(ctx);
  }
}

/** The answer and audit row of a write, from the zaak's row as written (with its relations, when it has any). */
export async function written(ctx: RequestContext, row: ZaakRow, status: number, announce: AnnounceChange, id: AuditChange['zaakId'] = row.id): Promise<void> {
  ctx.result = renderZaakRows([row], ctx.baseUrl)[0];
  ctx.response.status = status;
  ctx.response.body = ctx.result;
  await recordChange(requestOrigin(ctx), {
    zaakId: id,
    hoofdObject: String(ctx.result.url),
    zaak: zaakSummary(row, ctx.baseUrl),
    resource: 'zaak',
    resourceUrl: String(ctx.result.url),
    resourceWeergave: String(ctx.result.identificatie),
    oud: ctx.current ?? null,
    nieuw: ctx.result,
  }, announce);
}

/** The zaak as it will be: what creating or changing it must be authorized for. */
export const zaakAfterWrite = (ctx: RequestContext): AccessSubject => ({
  zaaktype: String(ctx.data?.zaaktype ?? ctx.zaak?.zaaktype),
  vertrouwelijkheidaanduiding: String(ctx.data?.vertrouwelijkheidaanduiding ?? ctx.zaak?.vertrouwelijkheidaanduiding),
});
