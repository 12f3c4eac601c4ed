import type { Knex } from 'knex';
import type { Principal } from '../../plugin.js';
import { vertrouwelijkheidRank } from '../shared/enums.js';

export const ZAKEN_LEZEN = 'zaken.lezen';

/**
 * Data filtering (zrc-006): only zaken whose zaaktype the principal is authorized for with `scope`,
 * at most as confidential as that authorization allows. Grouped per level so the query stays small.
 */
export function restrictToAuthorized(query: Knex.QueryBuilder, principal: Principal | undefined, scope = ZAKEN_LEZEN): void {
  if (principal?.allAuthorizations) return;
  const byRank = new Map<number, string[]>();
  for (const authorization of principal?.authorizations ?? []) {
    if (!authorization.scopes.includes(scope)) continue;
    const rank = vertrouwelijkheidRank(authorization.maxVertrouwelijkheidaanduiding);
    byRank.set(rank, [...(byRank.get(rank) ?? []), authorization.zaaktype]);
  }
  if (!byRank.size) {
    query.whereRaw('false');
    return;
  }
  query.where((outer) => {
    for (const [rank, zaaktypen] of byRank) {
      outer.orWhere((inner) => inner.whereIn('zaak.zaaktype', zaaktypen).andWhere('zaak.vertrouwelijkheid_rank', '<=', rank));
    }
  });
}
