import { ProblemError, RemoteError, invalidParam, referenceError, validationError, type InvalidParam, type RequestContext } from '../../src/plugin-api.js';
import type { Lookups } from './lookups.js';

const IMMUTABLE_FIELDS = ['identificatie', 'bronorganisatie', 'zaaktype'];

/** zrc-002, zrc-004: a field that is fixed once the resource exists. */
export const unchangeable = (name: string): InvalidParam => ({ name, code: 'wijzigen-niet-toegelaten', reason: 'Dit veld mag niet gewijzigd worden.' });

/** A rule's 400 as its invalid params instead of a throw, so one answer lists every broken rule. */
async function attempt(check: () => Promise<void> | void): Promise<InvalidParam[]> {
  try {
    await check();
    return [];
  } catch (error) {
    if (error instanceof ProblemError && error.code === 'invalid' && error.invalidParams) return error.invalidParams;
    throw error;
  }
}

export const ZAAK_WRITES = new Set(['create', 'update', 'partial_update']);

/** The rules of zaak_create, zaak_update and zaak_partial_update (zrc-001, 002, 010, 011, 013, 014, 015, archiefstatus). */
export async function validateZaak(ctx: RequestContext, lookups: Lookups): Promise<void> {
  const data = ctx.data!;
  const current = ctx.current;
  const merged = { ...current, ...data };
  const errors: InvalidParam[] = [];

  // zrc-002 (and the zaaktype): what identifies a zaak and its type never changes.
  if (current) {
    for (const field of IMMUTABLE_FIELDS) {
      if (field in data && data[field] !== current[field]) errors.push(unchangeable(field));
    }
  }

  // Checked concurrently (they fetch), reported in this order.
  const remote = await Promise.all([
    // zrc-001 and zrc-015: a published zaaktype, and products or services it offers.
    attempt(async () => {
      if (!('zaaktype' in data) && !('productenOfDiensten' in data)) return;
      const zaaktype = 'zaaktype' in data ? await lookups.zaaktype(ctx, String(data.zaaktype)) : await lookups.zaaktypeOf(ctx, current!);
      if ('zaaktype' in data && zaaktype.concept === true) {
        throw invalidParam('zaaktype', 'not-published', 'Het zaaktype is nog niet gepubliceerd (concept).');
      }
      const offered = new Set(zaaktype.productenOfDiensten ?? []);
      const products = (data.productenOfDiensten as string[] | undefined) ?? [];
      if (products.some((p) => !offered.has(p))) {
        throw invalidParam('productenOfDiensten', 'invalid-products-services', 'Niet alle producten/diensten horen bij het zaaktype.');
      }
    }),
    // zrc-010: the channel must resolve to a communicatiekanaal.
    attempt(async () => {
      if (!data.communicatiekanaal) return;
      try {
        await lookups.communicatiekanaal(ctx, String(data.communicatiekanaal));
      } catch (error) {
        throw referenceError('communicatiekanaal', error);
      }
    }),
    // zrc-011: each related zaak must resolve; ones in this registry are looked up directly.
    ...((data.relevanteAndereZaken as { url: string }[] | undefined) ?? []).map((related, index) =>
      attempt(async () => {
        const field = `relevanteAndereZaken.${index}.url`;
        try {
          if (related.url.startsWith(`${ctx.baseUrl}/`)) {
            if (!(await ctx.registry.zaken.find(ctx, related.url))) throw new RemoteError('status', related.url, `${related.url} does not exist`, 404);
          } else {
            await lookups.remoteZaak(ctx, related.url);
          }
        } catch (error) {
          throw referenceError(field, error);
        }
      }),
    ),
    attempt(() => checkHoofdzaak(ctx)),
    attempt(() => checkArchiefstatus(ctx, lookups, merged)),
  ]);
  errors.push(...remote.flat());

  // zrc-014: no payment date when payment does not apply; switching to `nvt` clears it.
  if (merged.betalingsindicatie === 'nvt') {
    if (data.laatsteBetaaldatum) {
      errors.push({ name: 'laatsteBetaaldatum', code: 'betaling-nvt', reason: 'Een laatste betaaldatum kan niet bij betalingsindicatie "nvt".' });
    } else if (merged.laatsteBetaaldatum) {
      data.laatsteBetaaldatum = null;
    }
  }

  if (errors.length) throw validationError(errors);
}

/** zrc-013: one level of deelzaken only, and never the zaak itself. */
async function checkHoofdzaak(ctx: RequestContext): Promise<void> {
  const url = linkedHoofdzaak(ctx);
  if (!url) return;
  const hoofdzaak = await ctx.registry.zaken.find(ctx, url);
  // The core answers for URLs that are no zaak here (no_match, does_not_exist).
  if (hoofdzaak) checkHierarchy(hoofdzaak, ctx.current);
}

function checkHierarchy(hoofdzaak: Record<string, unknown>, self: Record<string, unknown> | undefined): void {
  if (self && hoofdzaak.uuid === self.uuid) throw invalidParam('hoofdzaak', 'self-forbidden', 'Een zaak kan niet zijn eigen hoofdzaak zijn.');
  if (hoofdzaak.hoofdzaak) throw invalidParam('hoofdzaak', 'deelzaak-als-hoofdzaak', 'Een deelzaak kan geen hoofdzaak zijn.');
  if ((self?.deelzaken as unknown[] | undefined)?.length) {
    throw invalidParam('hoofdzaak', 'deelzaak-als-hoofdzaak', 'Een zaak met deelzaken kan zelf geen deelzaak worden.');
  }
}

/** The uuid of the hoofdzaak a zaak write sets, to lock it with the zaak. */
export async function hoofdzaakOf(ctx: RequestContext): Promise<string | undefined> {
  const { resource, action } = ctx.operation;
  const url = resource === 'zaak' && ZAAK_WRITES.has(action) ? linkedHoofdzaak(ctx) : undefined;
  return url ? ((await ctx.registry.zaken.find(ctx, url))?.uuid as string | undefined) : undefined;
}

/** The hoofdzaak a zaak write links anew; a PUT repeating the current one changes nothing to check. */
function linkedHoofdzaak(ctx: RequestContext): string | undefined {
  const url = ctx.data?.hoofdzaak;
  return url && url !== ctx.current?.hoofdzaak ? String(url) : undefined;
}

/**
 * Inside the transaction, with the zaak and its hoofdzaak locked: zrc-013 and the archiefstatus rule
 * again, on the state concurrent requests may have changed since `validate` (a chain or cycle of
 * deelzaken, a document added).
 */
export async function recheckZaak(ctx: RequestContext, lookups: Lookups, hoofdzaakUuid: string | undefined): Promise<void> {
  const { resource, action } = ctx.operation;
  if (resource !== 'zaak' || !ZAAK_WRITES.has(action)) return;
  if (hoofdzaakUuid) {
    const hoofdzaak = await ctx.registry.zaken.find(ctx, hoofdzaakUuid);
    if (!hoofdzaak) throw invalidParam('hoofdzaak', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
    const self = ctx.current ? await ctx.registry.zaken.find(ctx, String(ctx.current.uuid), { relations: true }) : undefined;
    checkHierarchy(hoofdzaak, self);
  }
  await checkArchiefstatus(ctx, lookups, { ...ctx.current, ...ctx.data });
}

/** Leaving `nog_te_archiveren` needs archived documents and the archive parameters. */
async function checkArchiefstatus(ctx: RequestContext, lookups: Lookups, merged: Record<string, unknown>): Promise<void> {
  const data = ctx.data!;
  const leaving = 'archiefstatus' in data && data.archiefstatus !== 'nog_te_archiveren' && (ctx.current?.archiefstatus ?? 'nog_te_archiveren') === 'nog_te_archiveren';
  if (!leaving) return;
  const errors: InvalidParam[] = [];
  if (ctx.current) {
    const documents = await lookups.documentsOf(ctx, String(ctx.current.uuid));
    const open = documents.filter((document) => document.status !== 'gearchiveerd');
    if (open.length) {
      errors.push({
        name: 'archiefstatus',
        code: 'documents-not-archived',
        reason: `Er zijn gerelateerde informatieobjecten waarvan de status nog niet "gearchiveerd" is: ${open.map((d) => d.url).join(', ')}`,
      });
    }
  }
  for (const field of ['archiefnominatie', 'archiefactiedatum']) {
    if (!merged[field]) errors.push({ name: field, code: `${field}-not-set`, reason: `Moet een waarde hebben als de archiefstatus niet "nog_te_archiveren" is.` });
  }
  if (errors.length) throw validationError(errors);
}
