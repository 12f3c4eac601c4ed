import assert from 'node:assert/strict';
import { consoleLogger, createRegistry, pgliteStorage } from '../../src/index.js';
import { testCatalog } from '../../test/helpers/registry.js';
import { expand } from './index.js';
import { EXPANDABLE_OPERATIONS, RELATIONS, type LocalKind } from './relations.js';

const SCHEMA_OF: Record<LocalKind, string> = {
  zaak: 'Zaak',
  status: 'Status',
  resultaat: 'Resultaat',
  rol: 'Rol',
  zaakeigenschap: 'ZaakEigenschap',
  zaakobject: 'ZaakObject',
  zaakinformatieobject: 'ZaakInformatieObject',
  zaakbesluit: 'ZaakBesluit',
};
const LOCAL = '#/components/schemas/';

async function documentOf(withExpand: boolean): Promise<any> {
  const registry = await createRegistry({
    storage: await pgliteStorage({ dataDir: 'memory' }),
    preset: 'none',
    plugins: withExpand ? [expand()] : [],
    catalog: testCatalog(),
    logger: consoleLogger('silent'),
  });
  try {
    return structuredClone(registry.openapi());
  } finally {
    await registry.close();
  }
}

/** Every operation of the document by its operationId. */
function operationsOf(document: any): Map<string, any> {
  const operations = new Map<string, any>();
  for (const item of Object.values<any>(document.paths)) for (const operation of Object.values<any>(item)) if (operation?.operationId) operations.set(operation.operationId, operation);
  return operations;
}

/** The names of the schemas a node refers to, directly or through the schemas it refers to. */
function reachable(document: any, node: unknown, seen = new Set<string>()): Set<string> {
  if (!node || typeof node !== 'object') return seen;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith(LOCAL) && !seen.has(ref.slice(LOCAL.length))) {
    seen.add(ref.slice(LOCAL.length));
    reachable(document, document.components.schemas[ref.slice(LOCAL.length)], seen);
  }
  for (const value of Object.values(node)) reachable(document, value, seen);
  return seen;
}

/** Whether a schema node, or one inside it, has an `_expand` property. */
function declaresExpand(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  if (Object.hasOwn((node as { properties?: object }).properties ?? {}, '_expand')) return true;
  return Object.values(node).some(declaresExpand);
}

/** Whether a schema, or any schema it refers to, has an `_expand` property. */
const acceptsExpand = (document: any, schema: unknown) => declaresExpand(schema) || [...reachable(document, schema)].some((name) => declaresExpand(document.components.schemas[name]));

describe('expand: the OpenAPI document', () => {
  let document: any;
  before(async () => {
    document = await documentOf(true);
  });

  it('answers every operation that takes expand with <X>Expanded, X with _expand as <X>Embedded', () => {
    const operations = operationsOf(document);
    for (const [id, kind] of Object.entries(EXPANDABLE_OPERATIONS)) {
      const success = Object.entries<any>(operations.get(id).responses).find(([status]) => /^2\d\d$/.test(status))![1];
      const names = reachable(document, success.content['application/json'].schema);
      assert.ok(names.has(`${SCHEMA_OF[kind]}Expanded`), `${id} answers ${SCHEMA_OF[kind]}Expanded`);
    }
    for (const kind of ['zaak', 'status', 'resultaat', 'zaakeigenschap', 'zaakinformatieobject', 'zaakbesluit'] as LocalKind[]) {
      const name = SCHEMA_OF[kind];
      const [base, extra] = document.components.schemas[`${name}Expanded`].allOf;
      assert.equal(base.$ref, `${LOCAL}${name}`);
      assert.equal(extra.properties._expand.allOf[0].$ref, `${LOCAL}${name}Embedded`);
    }
  });

  it('lists in <X>Embedded exactly the attributes the relation table allows: a resource of this registry as its Expanded schema, another API\'s as GenesteExpansie, lists as arrays', () => {
    const target = (schema: any): string => {
      const node = schema.type === 'array' ? schema.items : schema;
      return (node.$ref ?? node.allOf?.[0].$ref ?? node.oneOf?.[0].$ref).slice(LOCAL.length);
    };
    for (const [kind, relations] of Object.entries(RELATIONS) as [LocalKind, (typeof RELATIONS)[LocalKind]][]) {
      const embedded = document.components.schemas[`${SCHEMA_OF[kind]}Embedded`];
      assert.deepEqual(Object.keys(embedded.properties).sort(), Object.keys(relations).sort(), kind);
      for (const [field, relation] of Object.entries(relations)) {
        const schema = embedded.properties[field];
        assert.equal(schema.type === 'array', relation.many, `${kind}.${field} is a list`);
        assert.equal(target(schema), relation.target === 'remote' ? 'GenesteExpansie' : `${SCHEMA_OF[relation.target]}Expanded`, `${kind}.${field}`);
      }
    }
    assert.deepEqual(document.components.schemas.ZaakEmbedded.properties.hoofdzaak.oneOf[1], { $ref: `${LOCAL}EmptyObject` });
    assert.equal(document.components.schemas.GenesteExpansie.additionalProperties, true);
  });

  it('builds each variant of RolExpanded and ZaakObjectExpanded on the Expanded schema, so a variant keeps _expand', () => {
    for (const name of ['Rol', 'ZaakObject']) {
      const schema = document.components.schemas[`${name}Expanded`];
      assert.equal(schema.properties._expand.allOf[0].$ref, `${LOCAL}${name}Embedded`);
      const variants = Object.values<string>(schema.discriminator.mapping);
      assert.equal(variants.length, Object.keys(document.components.schemas[name].discriminator.mapping).length);
      for (const variant of variants) {
        assert.match(variant, new RegExp(`_${name}Expanded$`));
        const members = document.components.schemas[variant.slice(LOCAL.length)].allOf.map((member: any) => member.$ref);
        assert.ok(members.includes(`${LOCAL}${name}Expanded`) && !members.includes(`${LOCAL}${name}`), `${variant} builds on ${name}Expanded`);
      }
    }
  });

  it('keeps _expand out of every request body, and every $ref resolves', () => {
    for (const [id, operation] of operationsOf(document)) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body) assert.ok(!acceptsExpand(document, body), `${id} accepts no _expand`);
    }
    for (const name of reachable(document, document)) assert.ok(document.components.schemas[name], `${name} is in the document`);
  });

  it('leaves the answers of a registry without the plugin, built in the same process, as they were', async () => {
    const plain = await documentOf(false);
    assert.ok(!JSON.stringify(plain).includes('Expanded'));
    assert.equal(operationsOf(plain).get('zaak_retrieve').responses['200'].content['application/json'].schema.$ref, `${LOCAL}Zaak`);
    assert.equal(operationsOf(document).get('zaak_retrieve').responses['200'].content['application/json'].schema.$ref, `${LOCAL}ZaakExpanded`);
  });
});
