import type { RequestContext } from '../../plugin.js';
import { ProblemError } from '../../problem.js';
import type { Rendering } from '../../http/prerendered.js';
import { ownFields, zaakSummary } from './representation.js';
import type { ZaakRow } from './columns.js';
import { findZaakKey } from './key-reads.js';
import { findZaakByUuid } from './repository.js';
import { renderZaakRows, renderingKey, type Rendered } from './rendered.js';

/** What a read's `load` found: the zaak's row, or its current rendering (what was authorized is what is sent). */
export const loadedRows = new WeakMap<RequestContext, ZaakRow>();
export const loadedRenderings = new WeakMap<RequestContext, Rendering>();

/**
 * The zaak and its revision, in one statement: `ctx.zaak` for authorization, `ctx.zaakRevision` for a
 * cache, and the row whose stored rendering a read looks up (`execute`) after them. With `relations`
 * also what its derived fields come from: a write renders the zaak before the change, a read renders
 * a zaak this instance has no rendering of.
 */
async function loadZaak(ctx: RequestContext, relations: boolean): Promise<ZaakRow> {
  const row = await findZaakByUuid(ctx.db, ctx.params.uuid, { relations });
  if (!row) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
  ctx.zaak = zaakSummary(row, ctx.baseUrl);
  ctx.zaakRevision = row.revision == null ? undefined : String(row.revision);
  loadedRows.set(ctx, row);
  return row;
}

/**
 * A read's load, in as little as it can: when this instance holds a rendering of the zaak, its id and
 * revision alone, and `ctx.zaak` from the rendering when that is current (a 304 or a 200 from the
 * stored rendering then costs this one statement of three columns); otherwise the row as `loadZaak`
 * reads it, with its relations, so a zaak read for the first time costs one statement too, and one
 * changed since its rendering two. Either way `execute` sends what was loaded and authorized here,
 * never a revision read after it (the rendering may be replaced or evicted in between).
 */
export async function loadForRead(ctx: RequestContext, { renderings, ids }: Rendered): Promise<void> {
  const id = ids.get(ctx.params.uuid);
  if (id !== undefined && renderings.has(renderingKey(ctx.baseUrl, id))) {
    const found = await findZaakKey(ctx.db, ctx.params.uuid);
    if (!found) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    // The id the database answers, not the hint's: the rendering must be of this row.
    const rendering = found.revision == null ? undefined : renderings.get(renderingKey(ctx.baseUrl, found.id), String(found.revision));
    if (rendering) {
      ctx.zaak = ownFields(rendering.fields);
      ctx.zaakRevision = String(found.revision);
      loadedRenderings.set(ctx, rendering);
      return;
    }
  }
  await loadZaak(ctx, true);
}

/** Changes: also the representation before the change (`ctx.current`). */
export async function loadCurrent(ctx: RequestContext): Promise<ZaakRow> {
  const row = await loadZaak(ctx, true);
  ctx.current = renderZaakRows([row], ctx.baseUrl)[0];
  return row;
}
