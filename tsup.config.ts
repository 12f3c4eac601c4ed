import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'tsup';
import { SWAGGER_UI_ASSETS } from './src/ops/swagger-ui.js';

const SWAGGER_UI_DIST = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

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
    noExternal: [/^jsts\//, 'github-slugger'],
    onSuccess: async () => {
      // The CRS library loads the RDNAPTRANS2018 grids from beside the bundle.
      cpSync('plugins/geo-crs/transform/grids', 'dist/grids', { recursive: true });
      // The docs page's Swagger UI assets, with their license and notices: the package ships them
      // instead of depending on swagger-ui-dist, whose dependency sends analytics on install.
      for (const file of [...SWAGGER_UI_ASSETS, 'swagger-ui-bundle.js.LICENSE.txt', 'LICENSE', 'NOTICE']) {
        cpSync(path.join(SWAGGER_UI_DIST, file), path.join('dist/swagger-ui', file));
      }
    },
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
]);
