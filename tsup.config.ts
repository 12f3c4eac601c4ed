import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM + CJS with type declarations. Plugins get subpath entries here as they land.
    entry: { index: 'src/index.ts', demo: 'src/demo.ts', crs: 'plugins/geo-crs/transform/index.ts', signing: 'plugins/signing/client.ts', testing: 'src/testing/index.ts', objection: 'src/objection/index.ts' },
    // zaakregister/testing imports the core by the package's name: one copy of it, shared with the host's plugins.
    external: ['zaakregister'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    shims: true,
    target: 'node20',
    // jsts ships only ES modules with default exports that a CommonJS build cannot import as such: bundle the few modules used.
    noExternal: [/^jsts\//],
    // The CRS library loads the RDNAPTRANS2018 grids from beside the bundle.
    onSuccess: async () => cpSync('plugins/geo-crs/transform/grids', 'dist/grids', { recursive: true }),
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
]);
