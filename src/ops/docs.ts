import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import GithubSlugger from 'github-slugger';
import { Marked, type Tokens } from 'marked';
import type { ProblemDefinition } from '../problem.js';
import { SWAGGER_UI_ASSETS, swaggerUiFolder } from './swagger-ui.js';

/** The `docs/` folder of this package, from the source tree (`src/ops`) or the build (`dist`). */
function docsFolder(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)), up = 0; up < 3; dir = path.dirname(dir), up++) {
    if (existsSync(path.join(dir, 'docs', 'errors.md'))) return path.join(dir, 'docs');
  }
  throw new Error('docs/errors.md is missing from the zaakregister package');
}

/** Where links to the repository's other files lead from a served page: they are not served beside it. */
const REPOSITORY_DOCS = 'https://github.com/zaakregister/zaakregister/blob/main/docs/';

/** A link of a markdown page as served: another page beside it, or a file of the repository. */
function servedHref(href: string, pages: ReadonlySet<string>): string {
  const page = href.match(/^([\w-]+)\.md(#.*)?$/);
  if (page && pages.has(page[1])) return page[1] + (page[2] ?? '');
  if (/^[a-z][a-z0-9+.-]*:|^#|^\//i.test(href)) return href;
  return new URL(href, REPOSITORY_DOCS).toString();
}

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

/**
 * One markdown page as HTML. A code in the first column of a table (`not_found`, `bbox-too-large`)
 * gets an id, so that a problem's `type` (`…/docs/errors#not_found`) lands on its row; headings get
 * the ids GitHub gives them, so links between the guides land where they do on GitHub; links to the
 * other pages (`authentication.md`) lead to their rendered form beside it, links to other files of
 * the repository to the repository.
 */
function renderPage(markdown: string, pages: ReadonlySet<string>): { html: string; anchors: ReadonlySet<string> } {
  const anchored = new WeakSet<Tokens.Codespan>();
  const ids = new Set<string>();
  const slugger = new GithubSlugger();
  const marked = new Marked({
    walkTokens(token) {
      if (token.type !== 'table') return;
      for (const row of (token as Tokens.Table).rows) {
        for (const part of row[0]?.tokens ?? []) if (part.type === 'codespan') anchored.add(part as Tokens.Codespan);
      }
    },
    renderer: {
      codespan(token) {
        const code = escapeHtml(token.text);
        if (!anchored.has(token) || !/^[\w-]+$/.test(code) || ids.has(code)) return `<code>${code}</code>`;
        ids.add(code);
        return `<code id="${code}">${code}</code>`;
      },
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${escapeHtml(slugger.slug(text))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, tokens }) {
        return `<a href="${escapeHtml(servedHref(href, pages))}">${this.parser.parseInline(tokens)}</a>`;
      },
    },
  });
  const body = marked.parse(markdown, { async: false });
  const title = markdown.match(/^# (.+)$/m)?.[1] ?? 'zaakregister';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="page.css">
</head>
<body>
<nav><a href="./">API reference</a></nav>
<main>
${body}</main>
</body>
</html>
`;
  return { html, anchors: ids };
}

/**
 * The error catalogue page: `docs/errors.md`, and a table of the codes it does not describe (a
 * vendor plugin's), so that every problem `type` the registry answers with resolves.
 */
function errorCataloguePage(markdown: string, pages: ReadonlySet<string>, defined: readonly ProblemDefinition[]): string {
  const page = renderPage(markdown, pages);
  const undescribed = defined.filter((definition) => !page.anchors.has(definition.code));
  if (!undescribed.length) return page.html;
  const rows = undescribed.map(({ code, status, title, source }) => `| \`${code}\` | ${status} | ${title.replace(/\|/g, '\\|')} | ${source} |`);
  return renderPage(`${markdown}\n## Codes of other plugins\n\n| code | status | title | plugin |\n|---|---|---|---|\n${rows.join('\n')}\n`, pages).html;
}

const PAGE_CSS = `body { font: 15px/1.5 system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
table { border-collapse: collapse; } th, td { border: 1px solid #ccc; padding: .3rem .5rem; vertical-align: top; text-align: left; }
code { background: #f3f3f3; padding: 0 .2rem; } pre { background: #f3f3f3; padding: .75rem; overflow: auto; }
:target { background: #fff3a0; outline: 2px solid #e0b000; }
`;

/** The package's `docs/*.md` pages: name (`errors`) → markdown. */
function markdownPages(): Map<string, string> {
  const folder = docsFolder();
  return new Map(readdirSync(folder).filter((file) => file.endsWith('.md')).map((file) => [file.slice(0, -3), readFileSync(path.join(folder, file), 'utf8')]));
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
 * The API reference (Swagger UI) of one served OpenAPI document, and the package's docs pages
 * beside it: `errors` is the error catalogue that problem `type` URIs point into (`errors#<code>`),
 * `errors.md` its markdown. Mount it at `<base>/docs`; `/docs` redirects to `/docs/` so the page's
 * relative asset URLs resolve under it.
 */
export function docsRouter(openapi: () => Record<string, unknown>, definedProblems: () => readonly ProblemDefinition[]): Router {
  const router = express.Router({ strict: true });
  const markdown = markdownPages();
  const names = new Set(markdown.keys());
  // Rendered on first request: by then every plugin has defined its problems.
  const html = new Map<string, string>();
  const rendered = (name: string) => {
    let page = html.get(name);
    if (!page) {
      page = name === 'errors' ? errorCataloguePage(markdown.get(name)!, names, definedProblems()) : renderPage(markdown.get(name)!, names).html;
      html.set(name, page);
    }
    return page;
  };
  router.get('/', (req, res) => {
    if (!req.originalUrl.split('?')[0].endsWith('/')) {
      res.redirect(301, `${req.originalUrl.split('?')[0]}/`);
      return;
    }
    res.type('html').send(PAGE);
  });
  router.get('/init.js', (_req, res) => void res.type('js').send(INIT));
  router.get('/openapi.json', (_req, res) => void res.json(openapi()));
  router.get('/page.css', (_req, res) => void res.type('css').send(PAGE_CSS));
  for (const [name, text] of markdown) {
    router.get(`/${name}`, (_req, res) => void res.type('html').send(rendered(name)));
    router.get(`/${name}.md`, (_req, res) => void res.type('text/markdown; charset=utf-8').send(text));
  }
  const assets = swaggerUiFolder();
  for (const asset of SWAGGER_UI_ASSETS) router.get(`/${asset}`, (_req, res) => res.sendFile(path.join(assets, asset)));
  return router;
}
