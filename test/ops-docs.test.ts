import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import type { Browser } from 'playwright-core';
import { BACKENDS } from './helpers/backends.js';
import { launchChromium } from './helpers/browser.js';
import { ROOT } from './helpers/spawn.js';
import { startRegistry, type TestServer } from './helpers/registry.js';
import { createRegistry, jsonLogger, pinoLogger, problemCatalogue, versioning, type Plugin } from '../src/index.js';

/** Where the screenshot is kept: CI sets ARTIFACTS_DIR to a directory it keeps. */
const ARTIFACTS = process.env.ARTIFACTS_DIR ?? path.join(tmpdir(), 'zaakregister-artifacts');

/** A vendor's plugin with a problem code of its own, which docs/errors.md cannot describe. */
const vendorRule: Plugin = {
  name: 'vendor-rule',
  setup: (api) => api.defineProblem('vendor-rule-broken', 422, 'De leveranciersregel | is geschonden.'),
};

describe('the API docs page, in headless Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startRegistry(await BACKENDS[0].open(), { authorization: undefined, plugins: [vendorRule] });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the operations of the served document, with every asset from the registry itself', async () => {
    const page = await browser.newPage();
    const origin = new URL(server.base).origin;
    const requested: string[] = [];
    page.on('request', (request) => void requested.push(request.url()));
    const response = await page.goto(`${server.base}/docs`);
    assert.equal(response!.status(), 200);
    assert.equal(page.url(), `${server.base}/docs/`);
    await page.getByText('zaak_list', { exact: true }).first().waitFor({ timeout: 30_000 });
    assert.ok(await page.getByText('Alle ZAAKen opvragen.').first().isVisible());
    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, 'api-docs.png');
    await page.screenshot({ path: screenshot, fullPage: false });
    assert.ok(readFileSync(screenshot).length > 10_000);
    // Closed networks: nothing from a CDN.
    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
    assert.deepEqual(foreign, []);
  });

  it("points a problem's type at its row in the error catalogue page", async () => {
    const problem = await fetch(`${server.base}/zaken/not-a-uuid`);
    assert.equal(problem.status, 404);
    const { type, code } = (await problem.json()) as { type: string; code: string };
    assert.equal(type, `${server.base}/docs/errors#not_found`);
    assert.equal(code, 'not_found');
    const page = await browser.newPage();
    const response = await page.goto(type);
    assert.equal(response!.status(), 200);
    // The row the anchor names is the target, scrolled into view.
    const target = page.locator(':target');
    assert.equal(await target.getAttribute('id'), 'not_found');
    assert.ok(await target.isVisible());
    assert.match((await target.locator('xpath=ancestor::tr').innerText()).replace(/\s+/g, ' '), /^not_found 404 unknown resource/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'error-catalogue.png') });
    // Links between the pages lead to their rendered form.
    await page.getByRole('link', { name: 'authentication.md' }).first().click();
    assert.equal(page.url(), `${server.base}/docs/authentication`);
    assert.match(await page.locator('h1').innerText(), /Authentication/i);
  });

  it('has an anchor for every problem code the registry can answer with, a vendor plugin\'s too', async () => {
    const html = await (await fetch(`${server.base}/docs/errors`)).text();
    const codes = problemCatalogue().map((definition) => definition.code);
    assert.ok(codes.includes('vendor-rule-broken') && codes.includes('not_found'));
    assert.deepEqual(codes.filter((code) => !html.includes(`id="${code}"`)), []);
    // The vendor's code is not in docs/errors.md, so the page lists it with its status and title.
    assert.match(html, /<td><code id="vendor-rule-broken">vendor-rule-broken<\/code><\/td>\s*<td>422<\/td>\s*<td>De leveranciersregel \| is geschonden\.<\/td>\s*<td>vendor-rule<\/td>/);
  });

  it('points problems outside the API at the newest version\'s catalogue on the standalone server', async () => {
    const registry = await createRegistry({ authorization: 'development', baseUrl: 'https://zaken.example.nl/zaken/api/v1', logger: pinoLogger(jsonLogger({ level: 'silent' })) });
    try {
      const listening = await registry.listen(0, '127.0.0.1');
      const response = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/nergens`);
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { type: string }).type, 'https://zaken.example.nl/zaken/api/v1/docs/errors#not_found');
    } finally {
      await registry.close();
    }
  });

  it('serves each major its own reference and catalogue when two are served', async () => {
    const registry = await createRegistry({
      authorization: 'development',
      logger: pinoLogger(jsonLogger({ level: 'silent' })),
      plugins: [versioning({ versions: [{ version: '1.5.1', deprecation: { deprecated: '2026-12-01', sunset: '2027-06-01' } }, { version: '2.0.0' }] })],
    });
    try {
      const listening = await registry.listen(0, '127.0.0.1');
      const origin = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const page = await browser.newPage();
      for (const [major, version, deprecated] of [['v1', '1.5.1', true], ['v2', '2.0.0', false]] as const) {
        const base = `${origin}/zaken/api/${major}`;
        assert.equal((await page.goto(`${base}/docs/`))!.status(), 200);
        await page.locator('.info .version').first().waitFor({ timeout: 30_000 });
        assert.equal((await page.locator('.info .version').first().innerText()).trim(), version);
        assert.equal(await page.getByText(/Verouderd\./).first().isVisible(), deprecated);
        const problem = (await (await fetch(`${base}/zaken/x`)).json()) as { type: string };
        assert.equal(problem.type, `${base}/docs/errors#not_found`);
        assert.equal((await fetch(problem.type)).status, 200);
      }
    } finally {
      await registry.close();
    }
  });

  it('serves the error catalogue beside it, and mounts as registry.docs in a host app', async () => {
    const catalogue = await fetch(`${server.base}/docs/errors.md`);
    assert.equal(catalogue.status, 200);
    assert.equal(await catalogue.text(), readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8'));
    const app = express().use('/reference', server.registry.docs);
    const host = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => host.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/reference`;
      assert.match(await (await fetch(`${base}/`)).text(), /swagger-ui-bundle\.js/);
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.ok(document.paths['/zaken']);
      assert.equal((await fetch(`${base}/swagger-ui-bundle.js`)).status, 200);
    } finally {
      host.close();
    }
  });
});
