/**
 * Extracts the component schemas of the Zaken API contract (1.8.0) that the resources other than
 * Zaak are validated and documented with, so field names, lengths and enums are the standard's own.
 *
 *   npx tsx scripts/extract-contract-schemas.ts [path/to/zaken-api-1.8.0.openapi.yaml]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTRACT_PATH, loadContract } from './contract.js';

const source = process.argv[2] ?? CONTRACT_PATH;
const target = fileURLToPath(new URL('../src/resources/contract/components.json', import.meta.url));

type Node = Record<string, unknown>;
const contract = loadContract(source) as { components: { schemas: Record<string, Node> } };
const all = contract.components.schemas;

// Zaak has its own hand-written schema; error bodies come from the core; expand (the `*Expanded` and
// `*Embedded` variants and their GenesteExpansie) is the expand plugin's; pages are built per list.
const excluded = (name: string) =>
  /^(Zaak|PatchedZaak|ZaakZoek|Fout|ValidatieFout|FieldValidationError|EmptyObject|GenesteExpansie)$/.test(name) ||
  /(Expanded|Embedded)$/.test(name) ||
  name.startsWith('Paginated');

/** Drops `_expand` (the expand plugin's) and the duplicate `required` entries of the published file (invalid OpenAPI). */
function cleaned(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleaned);
  if (!node || typeof node !== 'object') return node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node as Node)) {
    if (key === 'properties') {
      const properties = { ...(value as Node) };
      delete properties._expand;
      out.properties = cleaned(properties);
    } else if (key === 'required' && Array.isArray(value)) out.required = [...new Set(value)];
    else out[key] = cleaned(value);
  }
  return out;
}

const schemas: Record<string, unknown> = {};
for (const [name, schema] of Object.entries(all)) if (!excluded(name)) schemas[name] = cleaned(schema);
const dangling = JSON.stringify(schemas).match(/#\/components\/schemas\/[A-Za-z_]+/g)?.filter((ref) => !(ref.split('/').pop()! in schemas));
if (dangling?.length) throw new Error(`unresolved references: ${[...new Set(dangling)].join(', ')}`);
writeFileSync(target, JSON.stringify(schemas, null, 1) + '\n');
console.log(`${Object.keys(schemas).length} schemas → ${target}`);
