/**
 * Compares a served OpenAPI document with a Zaken API contract, operation by operation and property
 * by property: what the contract test checks against the deviations of docs/adr-deviations.md.
 *
 * Compared: every path + method + operationId and `deprecated`; every parameter (name, in, required,
 * schema type, format, enum, maxLength); the request body and success response schemas with their
 * `$ref`s resolved on both sides (property names, type, format, enum, maxLength, required, readOnly,
 * nullable, deprecated, the number of `oneOf` variants), the success statuses and their header names;
 * the security scopes. Enums are compared as sets of their values other than '' and null (the
 * contract's BlankEnum and NullEnum members; null is compared as `nullable`). A named
 * schema referred to on both sides is compared once and its differences are reported under the
 * contract's name (`schema Zaak`); `$ref`s into other APIs' files are opaque.
 */

type Node = Record<string, any>;

/** One difference: where (an operationId or `schema <Name>`), which property, and how it differs. */
export interface Difference {
  where: string;
  property: string;
  difference: string;
}

const LOCAL = /^#\/components\/schemas\/(.+)$/;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const show = (value: unknown) => (value === undefined ? 'none' : Array.isArray(value) ? value.map(String).join(', ') || '(empty)' : String(value));

/** A schema node with `allOf` merged and an enum `oneOf` (`[SomeEnum, BlankEnum, NullEnum]`) made one enum. */
interface Shape {
  /** The named schema this node is (a `$ref`, or an `allOf` of one `$ref` with annotations beside it). */
  ref?: string;
  /** A `$ref` into another API's file: opaque. */
  external?: string;
  schema: Node;
}

function shapeOf(doc: Node, node: Node | undefined): Shape {
  if (!node || typeof node !== 'object') return { schema: {} };
  if (typeof node.$ref === 'string') {
    const local = LOCAL.exec(node.$ref);
    if (!local) return { external: node.$ref, schema: {} };
    const { $ref: _ref, ...siblings } = node;
    return { ref: local[1], schema: { ...shapeOf(doc, doc.components?.schemas?.[local[1]]).schema, ...siblings } };
  }
  let schema: Node = node;
  let ref: string | undefined;
  if (Array.isArray(node.allOf)) {
    const { allOf, ...siblings } = node;
    const members = (allOf as Node[]).map((member) => shapeOf(doc, member));
    if (members.length === 1 && members[0].ref && !siblings.properties) ref = members[0].ref;
    schema = siblings;
    for (const member of members) {
      const { properties, required, ...rest } = member.schema;
      schema = {
        ...rest,
        ...schema,
        properties: { ...schema.properties, ...properties },
        required: [...new Set([...(schema.required ?? []), ...(required ?? [])])],
      };
    }
    if (!Object.keys(schema.properties).length) delete schema.properties;
    if (!schema.required.length) delete schema.required;
  }
  if (Array.isArray(schema.oneOf)) {
    const members = (schema.oneOf as Node[]).map((member) => shapeOf(doc, member).schema);
    if (members.every((member) => Array.isArray(member.enum))) {
      const { oneOf: _oneOf, ...siblings } = schema;
      const values = members.flatMap((member) => member.enum);
      schema = { ...siblings, type: members.find((m) => m.type)?.type ?? siblings.type, enum: values, ...(values.includes(null) ? { nullable: true } : {}) };
    }
  }
  return { ref, schema };
}

const enumOf = (schema: Node) => (Array.isArray(schema.enum) ? [...new Set(schema.enum.filter((v: unknown) => v !== null && v !== '').map(String))].sort() : undefined);

class ContractComparison {
  readonly differences: Difference[] = [];
  private readonly pairs: [string, string][] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly contract: Node,
    private readonly served: Node,
  ) {}

  /** Every difference, each once, sorted. */
  run(): Difference[] {
    this.compareOperations();
    while (this.pairs.length) {
      const [c, s] = this.pairs.shift()!;
      const named = (doc: Node, name: string) => ({ schema: shapeOf(doc, { $ref: `#/components/schemas/${name}` }).schema });
      this.compareSchemas(`schema ${c}`, '', named(this.contract, c), named(this.served, s));
    }
    const unique = new Map(this.differences.map((d) => [`${d.where}|${d.property}|${d.difference}`, d]));
    return [...unique.values()].sort((a, b) => `${a.where}|${a.property}`.localeCompare(`${b.where}|${b.property}`));
  }

  private add(where: string, property: string, difference: string): void {
    this.differences.push({ where, property, difference });
  }

  private operations(doc: Node): Map<string, { id: string; operation: Node; item: Node }> {
    const out = new Map<string, { id: string; operation: Node; item: Node }>();
    for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Node][]) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation) out.set(`${method.toUpperCase()} ${path}`, { id: operation.operationId ?? `${method.toUpperCase()} ${path}`, operation, item });
      }
    }
    return out;
  }

  private compareOperations(): void {
    const contract = this.operations(this.contract);
    const served = this.operations(this.served);
    for (const [key, c] of contract) {
      const s = served.get(key);
      if (!s) {
        this.add(c.id, 'operation', 'not served');
        continue;
      }
      if (s.id !== c.id) this.add(c.id, 'operationId', `contract ${c.id}, served ${s.id}`);
      if (Boolean(c.operation.deprecated) !== Boolean(s.operation.deprecated)) this.add(c.id, 'deprecated', `contract ${Boolean(c.operation.deprecated)}, served ${Boolean(s.operation.deprecated)}`);
      this.compareParameters(c.id, this.parameters(this.contract, c), this.parameters(this.served, s));
      this.compareRequestBody(c.id, c.operation.requestBody, s.operation.requestBody);
      this.compareResponses(c.id, c.operation.responses ?? {}, s.operation.responses ?? {});
      this.compareSecurity(c.id, c.operation.security ?? this.contract.security, s.operation.security ?? this.served.security);
    }
    for (const [key, s] of served) if (!contract.has(key)) this.add(s.id, 'operation', 'not in the contract');
  }

  private resolve(doc: Node, node: Node): Node {
    const ref = typeof node?.$ref === 'string' ? /^#\/components\/(parameters|responses|requestBodies|headers)\/(.+)$/.exec(node.$ref) : null;
    return ref ? this.resolve(doc, doc.components[ref[1]][ref[2]]) : node;
  }

  private parameters(doc: Node, { operation, item }: { operation: Node; item: Node }): Map<string, Node> {
    const all = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Node) => this.resolve(doc, p));
    return new Map(all.map((p) => [`${p.name} (${p.in})`, p]));
  }

  private compareParameters(where: string, contract: Map<string, Node>, served: Map<string, Node>): void {
    for (const [key, c] of contract) {
      const s = served.get(key);
      if (!s) {
        this.add(where, `parameter ${key}`, 'not served');
        continue;
      }
      if (Boolean(c.required) !== Boolean(s.required)) this.add(where, `parameter ${key}`, `required: contract ${Boolean(c.required)}, served ${Boolean(s.required)}`);
      if (Boolean(c.deprecated) !== Boolean(s.deprecated)) this.add(where, `parameter ${key}`, `deprecated: contract ${Boolean(c.deprecated)}, served ${Boolean(s.deprecated)}`);
      const [cs, ss] = [shapeOf(this.contract, c.schema).schema, shapeOf(this.served, s.schema).schema];
      this.compareFacets(where, `parameter ${key}`, cs, ss);
      if (cs.items || ss.items) this.compareFacets(where, `parameter ${key}[]`, shapeOf(this.contract, cs.items).schema, shapeOf(this.served, ss.items).schema);
    }
    for (const key of served.keys()) if (!contract.has(key)) this.add(where, `parameter ${key}`, 'not in the contract');
  }

  private compareRequestBody(where: string, contract: Node | undefined, served: Node | undefined): void {
    const c = this.resolve(this.contract, contract ?? {}).content?.['application/json']?.schema;
    const s = this.resolve(this.served, served ?? {}).content?.['application/json']?.schema;
    if (!c && !s) return;
    if (!c || !s) return this.add(where, 'request body', c ? 'not served' : 'not in the contract');
    this.compareSchemas(where, 'request body', shapeOf(this.contract, c), shapeOf(this.served, s));
  }

  private compareResponses(where: string, contract: Node, served: Node): void {
    const success = (responses: Node) => Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
    const servedSuccess = success(served);
    for (const status of success(contract)) {
      const c = this.resolve(this.contract, contract[status]);
      const s = served[status] && this.resolve(this.served, served[status]);
      if (!s) {
        this.add(where, `response ${status}`, `not served (served ${show(servedSuccess)})`);
        continue;
      }
      const headers = (response: Node) => Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
      for (const header of headers(c)) if (!headers(s).includes(header)) this.add(where, `response ${status} header ${header}`, 'not served');
      for (const header of headers(s)) if (!headers(c).includes(header)) this.add(where, `response ${status} header ${header}`, 'not in the contract');
      const types = (response: Node) => Object.keys(response.content ?? {});
      if (show(types(c)) !== show(types(s))) this.add(where, `response ${status} content`, `contract ${show(types(c))}, served ${show(types(s))}`);
      const type = types(c).find((t) => types(s).includes(t));
      if (type) this.compareSchemas(where, `response ${status}`, shapeOf(this.contract, c.content[type].schema), shapeOf(this.served, s.content[type].schema));
    }
    for (const status of servedSuccess) if (!contract[status]) this.add(where, `response ${status}`, 'not in the contract');
  }

  private compareSecurity(where: string, contract: Node[] | undefined, served: Node[] | undefined): void {
    // The contract writes "any one of" as one scope `(a | b)`; the served document lists the scopes, any one of which suffices.
    const alternatives = (scopes: string[]) => scopes.flatMap((scope) => scope.replace(/[()]/g, '').split('|').map((s) => s.trim())).filter(Boolean).sort();
    const requirements = (security: Node[] | undefined) =>
      (security ?? []).map((requirement) => Object.entries(requirement).map(([scheme, scopes]) => `${scheme}: ${show(alternatives(scopes))}`).join(' + ')).sort();
    const c = requirements(contract);
    const s = requirements(served);
    if (c.join(' | ') !== s.join(' | ')) this.add(where, 'security', `contract ${c.join(' | ') || 'none'}, served ${s.join(' | ') || 'none'}`);
  }

  private compareFacets(where: string, property: string, c: Node, s: Node): void {
    for (const facet of ['type', 'format', 'maxLength']) if (c[facet] !== s[facet]) this.add(where, property, `${facet}: contract ${show(c[facet])}, served ${show(s[facet])}`);
    const ce = enumOf(c);
    const se = enumOf(s);
    if (show(ce) !== show(se)) {
      const missing = (ce ?? []).filter((v) => !se?.includes(v));
      const extra = (se ?? []).filter((v) => !ce?.includes(v));
      const parts = [!se ? 'not an enum when served' : missing.length && `not served: ${show(missing)}`, !ce ? 'no enum in the contract' : extra.length && `not in the contract: ${show(extra)}`];
      this.add(where, property, `enum: ${parts.filter(Boolean).join('; ')}`);
    }
  }

  /** Compares two schema nodes; when both are named schemas, schedules the pair instead of descending. */
  private compareSchemas(where: string, path: string, c: Shape, s: Shape): void {
    const label = path || '(schema)';
    if (c.external) return;
    if (c.ref && s.ref) {
      this.flags(where, label, c.schema, s.schema, ['nullable', 'readOnly']);
      const key = `${c.ref}|${s.ref}`;
      if (!this.seen.has(key)) {
        this.seen.add(key);
        this.pairs.push([c.ref, s.ref]);
      }
      return;
    }
    this.compareFacets(where, label, c.schema, s.schema);
    this.flags(where, label, c.schema, s.schema, ['nullable', 'readOnly', 'deprecated']);
    const variants = (schema: Node) => (Array.isArray(schema.oneOf) ? schema.oneOf.length : 0);
    if (variants(c.schema) !== variants(s.schema)) this.add(where, label, `oneOf: contract ${variants(c.schema) || 'none'}, served ${variants(s.schema) || 'none'}`);
    else (c.schema.oneOf ?? []).forEach((member: Node, i: number) => this.compareSchemas(where, `${label} oneOf ${i + 1}`, shapeOf(this.contract, member), shapeOf(this.served, s.schema.oneOf[i])));
    const required = (schema: Node) => [...new Set<string>(schema.required ?? [])].sort();
    const [cr, sr] = [required(c.schema), required(s.schema)];
    const notRequired = cr.filter((name) => !sr.includes(name));
    const extraRequired = sr.filter((name) => !cr.includes(name));
    if (notRequired.length) this.add(where, `${label} required`, `not required when served: ${show(notRequired)}`);
    if (extraRequired.length) this.add(where, `${label} required`, `required only when served: ${show(extraRequired)}`);
    const [cp, sp] = [c.schema.properties ?? {}, s.schema.properties ?? {}];
    const prefix = path ? `${path}.` : '';
    for (const name of Object.keys(cp)) {
      if (!(name in sp)) this.add(where, `${prefix}${name}`, 'not served');
      else this.compareSchemas(where, `${prefix}${name}`, shapeOf(this.contract, cp[name]), shapeOf(this.served, sp[name]));
    }
    for (const name of Object.keys(sp)) if (!(name in cp)) this.add(where, `${prefix}${name}`, 'not in the contract');
    if (c.schema.items || s.schema.items) this.compareSchemas(where, `${path}[]`, shapeOf(this.contract, c.schema.items), shapeOf(this.served, s.schema.items));
    const mapping = (schema: Node) => (schema.discriminator?.mapping ?? {}) as Record<string, string>;
    const [cm, sm] = [mapping(c.schema), mapping(s.schema)];
    for (const [value, target] of Object.entries(cm)) {
      if (!sm[value]) this.add(where, `${label} discriminator ${value}`, 'not served');
      else this.compareSchemas(where, `${label} discriminator ${value}`, shapeOf(this.contract, { $ref: target }), shapeOf(this.served, { $ref: sm[value] }));
    }
    for (const value of Object.keys(sm)) if (!cm[value]) this.add(where, `${label} discriminator ${value}`, 'not in the contract');
  }

  private flags(where: string, property: string, c: Node, s: Node, flags: string[]): void {
    for (const flag of flags) if (Boolean(c[flag]) !== Boolean(s[flag])) this.add(where, property, `${flag}: contract ${Boolean(c[flag])}, served ${Boolean(s[flag])}`);
  }
}

/** The differences between a served OpenAPI document and a contract. */
export function compareWithContract(contract: Node, served: Node): Difference[] {
  return new ContractComparison(contract, served).run();
}
