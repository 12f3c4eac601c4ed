import { checkOptions, optionsSchema, type Plugin, type RequestContext } from '../../src/plugin-api.js';
import { expandResources, type ExpandSettings, type Resource } from './engine.js';
import { FIELDS_SCHEMA, namingFields, projectAnswer, searchFields, type Selection } from './fields.js';
import { documentExpansions } from './openapi.js';
import { EXPANDABLE_OPERATIONS, type LocalKind } from './relations.js';
import { mergeTrees, parseExpand, type ExpandTree } from './tree.js';

export { expandResources, type ExpandSettings } from './engine.js';
export { checkTree, parseExpand, type ExpandTree } from './tree.js';
export type { LocalKind } from './relations.js';

export interface ExpandOptions {
  /** Most objects one answer may hold under `_expand`, at every level together (default 10,000). */
  maxObjects?: number;
  /** Most resources one request may look up in other APIs, catalog types included (default 1,000). */
  maxRemoteFetches?: number;
  /** Most remote look-ups of one request at the same time (default 8). */
  remoteConcurrency?: number;
  /**
   * Whose credentials read the Documenten, Besluiten and other APIs: `caller` (default) forwards the
   * client's own `Authorization` header, so that API decides what the client may see; `registry`
   * sends the registry's own (`remote.credentials`), so a client sees whatever the registry may read.
   */
  remoteCredentials?: 'caller' | 'registry';
}

const DEFAULTS: ExpandSettings = { maxObjects: 10_000, maxRemoteFetches: 1_000, remoteConcurrency: 8, remoteCredentials: 'caller' };

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.expand`. */
export const expandOptionsSchema = optionsSchema<ExpandOptions>(
  {
    maxObjects: { type: 'integer', minimum: 1, description: 'Most objects one answer may hold under _expand, at every level together (default 10000); more is a 400 expand-limit.' },
    maxRemoteFetches: { type: 'integer', minimum: 0, description: 'Most resources one request may look up in other APIs, catalog types included (default 1000); more is a 400 expand-limit.' },
    remoteConcurrency: { type: 'integer', minimum: 1, maximum: 64, description: 'Most remote look-ups of one request at the same time (default 8).' },
    remoteCredentials: {
      type: 'string',
      enum: ['caller', 'registry'],
      description:
        "Whose credentials read the Documenten, Besluiten and other APIs: caller (default) forwards the client's own Authorization header; registry sends the registry's remote.credentials, so every client sees what the registry may read.",
    },
  },
  { description: '`expand` / `_expand` on zaken and their records, at any depth and across APIs (plugins/expand/README.md); in the standard preset.' },
);

const DESCRIPTION =
  'Haal details van gelinkte resources direct op, onder `_expand`. Meerdere resources scheiden met een komma; dieper geneste met de punt-notatie, tot willekeurige diepte.';
const EXPAND_SCHEMA = {
  type: 'string',
  description: DESCRIPTION,
  example: 'zaaktype,status,status.statustype,hoofdzaak.status.statustype,hoofdzaak.deelzaken.status.statustype',
};

/** What one request expands: the kind of resource it answers and the tree. */
interface Expansion {
  root: LocalKind;
  tree: ExpandTree;
}

/** The resources of an answer: a page's results, a bare list, or one resource. */
function resourcesOf(body: unknown): Resource[] {
  if (Array.isArray(body)) return body as Resource[];
  const page = body as { results?: unknown };
  return Array.isArray(page.results) ? (page.results as Resource[]) : [body as Resource];
}

/**
 * `expand` on the list and detail reads of zaken and every record the 1.8.0 contract gives it, and on
 * `POST /zaken/_zoek` (query parameter, and the body's deprecated property): the linked resources of
 * this registry, its catalog and other APIs under `_expand`, at any depth, loaded per relation for a
 * whole page at once, and only what the client may read.
 */
export function expand(options: ExpandOptions = {}): Plugin {
  checkOptions('expand', expandOptionsSchema, options);
  const settings: ExpandSettings = { ...DEFAULTS, ...options };
  const expansions = new WeakMap<RequestContext, Expansion>();
  /** What `fields` of `_zoek` keeps of the answer. */
  const selections = new WeakMap<RequestContext, Selection>();
  return {
    name: 'expand',
    setup(api) {
      api.defineProblem('invalid-expand-field', 404, 'Het expand-veld is geen uit te breiden attribuut van de resource.');
      api.defineProblem('expand-unavailable', 404, 'Het antwoord met de uitgebreide gegevens kan niet worden gemaakt.');
      api.defineProblem('expand-limit', 400, 'Het antwoord met de uitgebreide gegevens wordt groter dan deze registratie toestaat.');
      for (const operationId of Object.keys(EXPANDABLE_OPERATIONS)) api.addQueryParameter(operationId, { name: 'expand', description: DESCRIPTION, schema: EXPAND_SCHEMA });
      api.addBodyProperty('zaak__zoek', 'expand', { ...EXPAND_SCHEMA, description: `Gebruik liever de query-parameter \`expand\`. ${DESCRIPTION}`, deprecated: true });
      api.addBodyProperty('zaak__zoek', 'fields', FIELDS_SCHEMA);
      api.addOpenApi(documentExpansions);
    },

    // Checked before the operation reads anything: a wrong path costs no query.
    preHandler(ctx) {
      const root = EXPANDABLE_OPERATIONS[ctx.operation.id];
      if (!root) return undefined;
      const fields = ctx.operation.id === 'zaak__zoek' ? searchFields(ctx.body, ctx.query) : undefined;
      if (fields) {
        selections.set(ctx, fields.selection);
        // The list then skips the derived attributes the answer does not use.
        ctx.zaakAttributes = fields.zaakAttributes;
        if (fields.tree.size) expansions.set(ctx, { root, tree: fields.tree });
        return undefined;
      }
      const values = [ctx.query.expand, ctx.operation.id === 'zaak__zoek' ? ctx.body?.expand : undefined].filter((v): v is string => typeof v === 'string' && !!v.trim());
      if (!values.length) return undefined;
      const tree = values.map((value) => parseExpand(value, root)).reduce(mergeTrees);
      if (tree.size) expansions.set(ctx, { root, tree });
      return undefined;
    },

    // Synchronous when nothing is to be expanded: most requests pass without a promise.
    serialize(body, ctx) {
      const expansion = expansions.get(ctx);
      const selection = selections.get(ctx);
      if (!expansion) return selection && projectAnswer(body, selection);
      const expanded = expandResources(ctx, expansion.root, resourcesOf(body), expansion.tree, settings);
      if (!selection) return expanded.then(() => body);
      // `fields`: the expanded answer trimmed; what the engine refuses names `fields`, which asked for it.
      return expanded.then(
        () => projectAnswer(body, selection),
        (error: unknown) => Promise.reject(namingFields(error)),
      );
    },
  };
}
