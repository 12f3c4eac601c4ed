import type { CatalogKind, CatalogObject } from '../../catalog/types.js';
import type { RequestContext } from '../../plugin.js';
import { referenceError } from '../../remote/errors.js';

/** A catalog resource a client referred to in `field`; a failed look-up is that field's 400. */
export async function catalogReference(ctx: Pick<RequestContext, 'registry'>, kind: Exclude<CatalogKind, 'zaaktype'>, url: string, field: string): Promise<CatalogObject> {
  try {
    return await ctx.registry.catalog.get(kind, url);
  } catch (error) {
    throw referenceError(field, error);
  }
}
