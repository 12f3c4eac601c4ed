import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // The library: ESM + CJS with type declarations. Plugins get subpath entries here as they land.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    shims: true,
    target: 'node20',
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
]);
