import type { Knex } from 'knex';
import type { RequestContext } from '../../plugin.js';
import { RenderingCache, handOut, renderingOf, type Rendering } from '../../http/prerendered.js';
import { directRows } from '../../storage/named-statement.js';
import { PREPARED } from '../../storage/statement-batching.js';
import { restrictToAuthorized } from '../shared/access.js';
import { DERIVED_ATTRIBUTES, renderZaak, zaakSummary } from './representation.js';
import { zaakColumns, type ZaakRow } from './columns.js';
import { relationsOf, zaakColumnsWithRelations } from './relations.js';
import { selectZaken, withRevision } from './repository.js';

/** Renders rows selected with `zaakColumnsWithRelations`: their derived fields came with them. */
export function renderZaakRows(rows: ZaakRow[], baseUrl: string): Record<string, unknown>[] {
  const relations = relationsOf(rows);
  return rows.map((row) => renderZaak(row, relations, baseUrl));
}

/** How many renderings (zaak and base URL) this instance keeps: the pages and zaken read most. */
export const RENDERED_ZAKEN = 10_000;

/**
 * A stored rendering depends on the zaak's revision and the base URL it was rendered for. Keyed by
 * the zaak's id, which a page has from its index walk: a page's statement then needs no lookup of
 * each zaak's uuid (a hundred index scans, 0.3 ms a page at 1M zaken).
 */
export const renderingKey = (baseUrl: string, id: number) => `${baseUrl} ${id}`;

/** What a page or a read names of each zaak: enough to find its stored rendering. */
export interface ZaakKey {
  id: number;
  revision?: unknown;
}

/**
 * The ids of zaken whose renderings were stored, by uuid (neither ever changes): a detail read knows
 * only the uuid, and a rendering to look up is what lets it load the revision alone. A hint, bounded
 * as the renderings are: a wrong or missing one costs a statement, never a wrong answer.
 */
export class ZaakIds {
  private readonly ids = new Map<string, number>();
  constructor(private readonly maxEntries: number) {}
  get(uuid: string): number | undefined {
    return this.ids.get(uuid);
  }
  set(uuid: string, id: number): void {
    if (this.ids.get(uuid) === id) return;
    this.ids.delete(uuid);
    if (this.ids.size >= this.maxEntries) this.ids.delete(this.ids.keys().next().value!);
    this.ids.set(uuid, id);
  }
}

/** What an instance keeps of the zaken it rendered. */
export interface Rendered {
  renderings: RenderingCache;
  ids: ZaakIds;
}

/** Whether an answer using these zaak attributes (all when undefined) needs those derived from the zaak's records. */
const needsRelations = (attributes: ReadonlySet<string> | undefined) => !attributes || DERIVED_ATTRIBUTES.some((name) => attributes.has(name));

/** The key of a zaak's rendering without its derived attributes: kept beside its full rendering, in the same bounds. */
const ownKey = (key: string) => `${key} own`;

/**
 * The zaken of `keys` as handed-out renderings, in that order. A rendering stored for the zaak's
 * revision and base URL is reused; the others are read with their relations in one query, rendered
 * and stored. A rendering depends on nothing else: authorization decides which zaken a client gets,
 * never their fields, and what plugins change per request (CRS, expand, API version) they change on
 * the copy, which is then serialized anew.
 *
 * `attributes`: the zaak attributes the answer uses (`ctx.zaakAttributes`). When none is derived from
 * the zaak's records, a zaak without a stored rendering is read without its relations (no subselect
 * per record kind) and handed out without the derived attributes, that rendering stored apart.
 */
export async function renderedZaken(
  db: Knex,
  { renderings, ids }: Rendered,
  ctx: RequestContext,
  keys: ZaakKey[],
  read: ZaakRow[] = [],
  attributes?: ReadonlySet<string>,
): Promise<Record<string, unknown>[]> {
  const baseUrl = ctx.baseUrl;
  const relations = needsRelations(attributes);
  const keyOf = (id: number) => renderingKey(baseUrl, id);
  const found = new Map<number, Rendering>();
  const missing: number[] = [];
  for (const key of keys) {
    const revision = key.revision == null ? undefined : String(key.revision);
    // A full rendering serves an answer without the derived attributes too.
    const stored = revision === undefined ? undefined : (renderings.get(keyOf(key.id), revision) ?? (relations ? undefined : renderings.get(ownKey(keyOf(key.id)), revision)));
    if (stored) found.set(key.id, stored);
    else missing.push(key.id);
  }
  if (missing.length) {
    // Rows the caller read with their relations already need no statement of their own.
    const ready = read.filter((row) => missing.includes(row.id));
    const unread = missing.filter((id) => !ready.some((row) => row.id === id));
    const columns = relations ? zaakColumnsWithRelations(db) : zaakColumns(db);
    const query = withRevision(selectZaken(db)).whereRaw('zaak.id = any(?)', [unread]).select(columns);
    // A zaak may have changed since the caller's statement: read again, it is sent only if the client may still see it.
    restrictToAuthorized(query, ctx.principal);
    const rows = [...ready, ...(unread.length ? await directRows<ZaakRow>(db, query, PREPARED) : [])];
    const rowRelations = relations ? relationsOf(rows) : undefined;
    for (const row of rows) {
      const rendering = renderingOf(rowRelations ? renderZaak(row, rowRelations, baseUrl) : zaakSummary(row, baseUrl));
      found.set(row.id, rendering);
      if (row.revision != null) {
        renderings.set(rowRelations ? keyOf(row.id) : ownKey(keyOf(row.id)), String(row.revision), rendering);
        ids.set(row.uuid, row.id);
      }
    }
  }
  // A zaak removed between the two statements is left out.
  return keys.flatMap((key) => (found.has(key.id) ? [handOut(found.get(key.id)!)] : []));
}
