#!/usr/bin/env node
// The dependency direction is core → resources → plugins, never back (`npm run lint:layers`, run by CI):
// - no import cycle in src/ and plugins/, type-only imports included;
// - src/plugin-types.ts and its modules under src/plugin-types/, the types plugins see, are a leaf: they
//   import only each other and the type-only modules below;
// - plugins reach the core through its public surface (src/plugin-api.ts) and not each other;
// - of the core, only the composition roots (the package entry and the presets) import plugins.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const TYPES_LEAF = 'src/plugin-types.ts';
const inTypesLeaf = (file) => file === TYPES_LEAF || file.startsWith('src/plugin-types/');
const LEAF_MAY_IMPORT = new Set(['src/catalog/types.ts', 'src/lifecycle.ts', 'src/log.ts', 'src/operation-ids.ts', 'src/storage/types.ts']);
const PUBLIC_SURFACE = 'src/plugin-api.ts';
const COMPOSITION_ROOTS = new Set(['src/index.ts', 'src/presets.ts']);

const graph = await madge(['src', 'plugins'], { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', excludeRegExp: [/\.test\.ts$/] });
const imports = graph.obj();
const problems = [];
const pluginOf = (file) => (file.startsWith('plugins/') ? file.split('/')[1] : undefined);

for (const cycle of graph.circular()) problems.push(`import cycle: ${[...cycle, cycle[0]].join(' → ')}`);
for (const [file, dependencies] of Object.entries(imports).filter(([file]) => inTypesLeaf(file))) {
  for (const dependency of dependencies) {
    if (!inTypesLeaf(dependency) && !LEAF_MAY_IMPORT.has(dependency)) problems.push(`${file} must stay a leaf of types but imports ${dependency}`);
  }
}
for (const dependency of LEAF_MAY_IMPORT) {
  for (const further of imports[dependency] ?? []) problems.push(`${dependency} is imported by the types leaf, so it may import nothing of the core, but imports ${further}`);
}
for (const [file, dependencies] of Object.entries(imports)) {
  const plugin = pluginOf(file);
  for (const dependency of dependencies) {
    if (plugin && dependency.startsWith('src/') && dependency !== PUBLIC_SURFACE) problems.push(`${file} imports ${dependency}: plugins use the core's public API (${PUBLIC_SURFACE}) only`);
    if (plugin && pluginOf(dependency) && pluginOf(dependency) !== plugin) problems.push(`${file} imports ${dependency}: plugins do not use each other's internals`);
    if (file.startsWith('src/') && pluginOf(dependency) && !COMPOSITION_ROOTS.has(file)) problems.push(`${file} imports ${dependency}: the core does not depend on plugins`);
  }
}

if (problems.length) {
  console.error(`${problems.length} layering problem(s):\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`layers ok: ${Object.keys(imports).length} modules, no cycle, ${TYPES_LEAF} is a leaf`);
