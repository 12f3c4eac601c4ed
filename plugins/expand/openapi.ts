import type { JsonSchema } from '../../src/plugin-api.js';
import { EXPANDABLE_OPERATIONS, RELATIONS, type LocalKind, type Relation } from './relations.js';

/** The served schema of each resource of this registry that can be expanded. */
export const SCHEMA_NAMES: Readonly<Record<LocalKind, string>> = {
  zaak: 'Zaak',
  status: 'Status',
  resultaat: 'Resultaat',
  rol: 'Rol',
  zaakeigenschap: 'ZaakEigenschap',
  zaakobject: 'ZaakObject',
  zaakinformatieobject: 'ZaakInformatieObject',
  zaakbesluit: 'ZaakBesluit',
};

/**
 * The single links the 1.8.0 contract documents as "the resource or `{}`" (`EmptyObject`). Every
 * other single link of this registry is documented as the resource alone, as the contract does.
 */
const EMPTY_DOCUMENTED: ReadonlySet<string> = new Set(['zaak.hoofdzaak', 'zaak.status', 'zaak.resultaat', 'zaakeigenschap.zaak']);

const ref = (name: string) => `#/components/schemas/${name}`;
const expanded = (name: string) => `${name}Expanded`;

const GENESTE_EXPANSIE: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: 'Een resource van een andere API (Catalogi, Documenten, Besluiten, ...) zoals die API hem geeft, met in `_expand` wat daarin verder is uitgebreid.',
};
const EMPTY_OBJECT: JsonSchema = { type: 'object', example: {}, description: 'Leeg: de link is leeg, of de client mag de resource niet lezen.' };

/** What `_expand` holds for one attribute: the linked resource(s), as expanded as the request asks. */
function attributeSchema(kind: LocalKind, field: string, relation: Relation, schemas: Record<string, unknown>): JsonSchema {
  const target = relation.target === 'remote' ? undefined : SCHEMA_NAMES[relation.target];
  const one: JsonSchema = target && schemas[target] ? { $ref: ref(expanded(target)) } : { $ref: ref('GenesteExpansie') };
  if (relation.many) return { type: 'array', items: one, description: `De resources waar \`${field}\` naar verwijst en die de client mag lezen.` };
  const description = `De resource waar \`${field}\` naar verwijst.`;
  if (EMPTY_DOCUMENTED.has(`${kind}.${field}`)) return { oneOf: [one, { $ref: ref('EmptyObject') }], description: `${description} Leeg als er geen is of de client hem niet mag lezen.` };
  return { allOf: [one], description };
}

/** `<X>Embedded`: the attributes of X that `expand` may name, each as its expansion. */
function embeddedSchema(kind: LocalKind, schemas: Record<string, unknown>): JsonSchema {
  const properties = Object.fromEntries(Object.entries(RELATIONS[kind]).map(([field, relation]) => [field, attributeSchema(kind, field, relation, schemas)]));
  return { type: 'object', description: `De met \`expand\` gevraagde resources waar deze ${SCHEMA_NAMES[kind]} naar verwijst, per attribuut.`, properties };
}

const EXPAND_PROPERTY = (kind: LocalKind): JsonSchema => ({
  allOf: [{ $ref: ref(`${SCHEMA_NAMES[kind]}Embedded`) }],
  description: 'De gelinkte resources die de query-parameter `expand` vraagt; alleen aanwezig met `expand`.',
});

/** Replaces every `$ref` to `from` inside `node` by one to `to`, in place. */
function replaceRef(node: unknown, from: string, to: string): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item) => replaceRef(item, from, to));
  const object = node as Record<string, unknown>;
  if (object.$ref === from) object.$ref = to;
  for (const value of Object.values(object)) replaceRef(value, from, to);
}

/**
 * `<X>Expanded`: X with `_expand`. X itself stays as it is, so request bodies never accept `_expand`.
 * A polymorphic X (Rol, ZaakObject) is copied with its discriminator pointing at `<variant>Expanded`
 * copies of its variants, which build on `<X>Expanded`: through X they would lose `_expand`.
 */
function addExpandedSchemas(kind: LocalKind, schemas: Record<string, JsonSchema>): void {
  const name = SCHEMA_NAMES[kind];
  const schema = schemas[name];
  const mapping = (schema.discriminator as { mapping?: Record<string, string> } | undefined)?.mapping;
  schemas[`${name}Embedded`] = embeddedSchema(kind, schemas);
  if (!mapping) {
    schemas[expanded(name)] = { allOf: [{ $ref: ref(name) }, { properties: { _expand: EXPAND_PROPERTY(kind) } }] };
    return;
  }
  const copy = structuredClone(schema);
  copy.properties = { ...(copy.properties as object), _expand: EXPAND_PROPERTY(kind) };
  copy.discriminator = { ...(copy.discriminator as object), mapping: Object.fromEntries(Object.entries(mapping).map(([value, target]) => [value, `${target}Expanded`])) };
  schemas[expanded(name)] = copy;
  for (const target of Object.values(mapping)) {
    const variant = target.replace(/^#\/components\/schemas\//, '');
    const variantCopy = structuredClone(schemas[variant]);
    replaceRef(variantCopy, ref(name), ref(expanded(name)));
    schemas[expanded(variant)] = variantCopy;
  }
}

/**
 * Documents `_expand` as the 1.8.0 contract does: the answers of the operations that take `expand`
 * refer to `<X>Expanded` (X with `_expand`, whose schema `<X>Embedded` lists what each attribute
 * expands to), a resource of another API is `GenesteExpansie`. Runs on the finished document, so
 * the copies of Rol and ZaakObject hold what every plugin added to them.
 */
export function documentExpansions(document: Record<string, unknown>): void {
  const schemas = ((document.components as Record<string, unknown>).schemas ??= {}) as Record<string, JsonSchema>;
  const kinds = (Object.keys(SCHEMA_NAMES) as LocalKind[]).filter((kind) => schemas[SCHEMA_NAMES[kind]]);
  for (const kind of kinds) addExpandedSchemas(kind, schemas);
  schemas.GenesteExpansie = GENESTE_EXPANSIE;
  schemas.EmptyObject = EMPTY_OBJECT;

  for (const item of Object.values(document.paths as Record<string, Record<string, { operationId?: string; responses?: Record<string, any> }>>)) {
    for (const operation of Object.values(item)) {
      const kind = EXPANDABLE_OPERATIONS[operation?.operationId ?? ''];
      if (!kind || !kinds.includes(kind)) continue;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const content = /^2\d\d$/.test(status) ? response?.content?.['application/json'] : undefined;
        if (!content?.schema) continue;
        // A copy: the operation's own schema object is shared with every registry built from it.
        content.schema = structuredClone(content.schema);
        replaceRef(content.schema, ref(SCHEMA_NAMES[kind]), ref(expanded(SCHEMA_NAMES[kind])));
      }
    }
  }
}
