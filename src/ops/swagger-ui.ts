import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Swagger UI assets the page uses: served by the registry itself, since registries run in closed networks (no CDN). */
export const SWAGGER_UI_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

/**
 * Where the Swagger UI assets are: `swagger-ui/` beside the build (copied there from `swagger-ui-dist`
 * at build time, so that the package does not depend on it and its install-time analytics), or that
 * development dependency itself when running from the source tree.
 */
export function swaggerUiFolder(): string {
  const copied = path.join(path.dirname(fileURLToPath(import.meta.url)), 'swagger-ui');
  if (existsSync(path.join(copied, SWAGGER_UI_ASSETS[1]))) return copied;
  try {
    return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    throw new Error(`the API reference's assets are missing: expected ${copied}/ (run npm run build)`);
  }
}
