import type { RequestContext } from '../../src/plugin-api.js';
import { localUrl, RELATIONS, type LocalKind, type Relation } from './relations.js';
import { expansionSession, type ExpandSettings, type ExpansionSession, type Link, type Loaded, type Resource } from './sources.js';
import { checkTree, invalidField, type ExpandTree } from './tree.js';

export type { ExpandSettings, Resource };

/** A resource at one level of the expansion, with what it is. */
interface Entry {
  resource: Resource;
  kind: LocalKind | 'remote';
}

const isUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\//i.test(value);
/** An item of a list of links: a URL, or an object with one (`relevanteAndereZaken`). */
const linkOf = (item: unknown): string | undefined => (isUrl(item) ? item : isUrl((item as { url?: unknown } | null)?.url) ? (item as { url: string }).url : undefined);

/**
 * What an attribute of a fetched resource links to: the standard lets any attribute holding a URL or a
 * list of them be expanded. An attribute it lacks, or one holding something else, is zrc-027's 404.
 */
function remoteRelation(resource: Resource, field: string, path: string): Relation {
  if (!Object.hasOwn(resource, field)) throw invalidField(path, `${field} is geen attribuut van ${String(resource.url ?? 'de opgehaalde resource')}.`);
  const value = resource[field];
  if (value === null || isUrl(value)) return { target: 'remote', many: false };
  if (Array.isArray(value) && value.every((item) => linkOf(item))) return { target: 'remote', many: true };
  throw invalidField(path, `${field} van ${String(resource.url ?? 'de opgehaalde resource')} bevat geen URL.`);
}

/** The URLs an attribute holds. */
function urlsOf(resource: Resource, field: string): string[] {
  const value = resource[field];
  if (Array.isArray(value)) return value.map(linkOf).filter((url): url is string => !!url);
  return isUrl(value) ? [value] : [];
}

/** The uuid of the zaak a resource of this registry belongs to (the zaak's own for a zaak). */
function zaakOf(ctx: RequestContext, entry: Entry): string | undefined {
  if (entry.kind === 'remote') return undefined;
  const { resource } = entry;
  return localUrl(ctx.baseUrl, String(resource.url))?.zaak ?? localUrl(ctx.baseUrl, String(resource.zaak))?.zaak;
}

/**
 * Fills `_expand` on every resource of one level, per attribute in one batch for the whole level,
 * then does the same for the resources it placed, level after level, as deep as the tree goes.
 */
async function expandLevel(session: ExpansionSession, entries: Entry[], tree: ExpandTree, prefix: string): Promise<void> {
  if (!entries.length || !tree.size) return;
  const { ctx } = session;
  for (const { resource } of entries) resource._expand ??= {};
  for (const [field, subtree] of tree) {
    const path = prefix + field;
    const relations = entries.map(({ resource, kind }) => (kind === 'remote' ? remoteRelation(resource, field, path) : RELATIONS[kind][field]));
    const links: Link[] = entries.flatMap((entry, i) => {
      const zaak = zaakOf(ctx, entry);
      return urlsOf(entry.resource, field).map((url) => ({ url, zaak, leaveOutElsewhere: relations[i].target === 'zaak' }));
    });
    const loaded = await session.load(links);
    session.place(entries.reduce((count, { resource }) => count + urlsOf(resource, field).filter((url) => loaded.get(url)).length, 0));

    // Per parent its own copy: one resource reached along two paths gets each path's expansions.
    const next: Entry[] = [];
    const copy = (found: Loaded | null | undefined) => {
      if (!found) return undefined;
      const entry = { resource: { ...found.resource }, kind: found.kind };
      next.push(entry);
      return entry.resource;
    };
    entries.forEach(({ resource }, i) => {
      const urls = urlsOf(resource, field);
      const expanded = resource._expand as Resource;
      expanded[field] = relations[i].many ? urls.map((url) => copy(loaded.get(url))).filter(Boolean) : (urls.length && copy(loaded.get(urls[0]))) || {};
    });
    // A resource of this registry reached through a link the tree could not foresee: its part of the tree is checked now.
    const unforeseen = new Set(next.map(({ kind }) => kind).filter((kind): kind is LocalKind => kind !== 'remote' && !relations.some((r) => r.target === kind)));
    for (const kind of unforeseen) checkTree(kind, subtree, `${path}.`);
    await expandLevel(session, next, subtree, `${path}.`);
  }
}

/**
 * Expands `tree` on resources of this registry of kind `root` (a page, or one resource): fills their
 * `_expand`, at any depth, with what the client may read, within `settings`' limits. The seam for
 * other ways of asking for expansions (`fields` of `_zoek`): parse with `parseExpand`, run with this.
 */
export async function expandResources(ctx: RequestContext, root: LocalKind, resources: Resource[], tree: ExpandTree, settings: ExpandSettings): Promise<void> {
  const session = expansionSession(ctx, settings);
  // As they are before expansion: a copy placed elsewhere in the tree gets its own `_expand`. Zaken
  // read without some attributes (`ctx.zaakAttributes`) are not what a link to them answers: read again.
  if (!ctx.zaakAttributes) for (const resource of resources) session.remember({ resource: { ...resource }, kind: root });
  await expandLevel(session, resources.map((resource) => ({ resource, kind: root })), tree, '');
}
