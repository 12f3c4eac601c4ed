import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';

/** The packaged Swagger UI assets: served by the registry itself, since registries run in closed networks (no CDN). */
const SWAGGER_UI = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

/** `docs/errors.md` of this package, from the source tree (`src/ops`) or the build (`dist`). */
function errorCatalogue(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)), up = 0; up < 3; dir = path.dirname(dir), up++) {
    const file = path.join(dir, 'docs', 'errors.md');
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  throw new Error('docs/errors.md is missing from the zaakregister package');
}

const PAGE = `<!doctype html>
<html lang="nl">
<head>
<meta charset="utf-8">
<title>Zaken API</title>
<link rel="icon" href="favicon-32x32.png">
<link rel="stylesheet" href="swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="init.js"></script>
</body>
</html>
`;

// A file rather than an inline script: the page works under a Content-Security-Policy without 'unsafe-inline'.
const INIT = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true, displayOperationId: true });\n`;

/**
 * The API reference (Swagger UI) of one served OpenAPI document, and the error catalogue that
 * problem `type` URIs name. Mount it at `<base>/docs`; `/docs` redirects to `/docs/` so the page's
 * relative asset URLs resolve under it.
 */
export function docsRouter(openapi: () => Record<string, unknown>): Router {
  const router = express.Router({ strict: true });
  const errors = errorCatalogue();
  router.get('/', (req, res) => {
    if (!req.originalUrl.split('?')[0].endsWith('/')) {
      res.redirect(301, `${req.originalUrl.split('?')[0]}/`);
      return;
    }
    res.type('html').send(PAGE);
  });
  router.get('/init.js', (_req, res) => void res.type('js').send(INIT));
  router.get('/openapi.json', (_req, res) => void res.json(openapi()));
  router.get('/errors.md', (_req, res) => void res.type('text/markdown; charset=utf-8').send(errors));
  for (const asset of ASSETS) router.get(`/${asset}`, (_req, res) => res.sendFile(path.join(SWAGGER_UI, asset)));
  return router;
}
