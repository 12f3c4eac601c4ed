import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { chromium, type Browser } from 'playwright-core';
import { BACKENDS } from './helpers/backends.js';
import { ROOT } from './helpers/spawn.js';
import { startRegistry, type TestServer } from './helpers/registry.js';

/** Debian's chromium (CI installs it; see .ci/run), or CHROMIUM_PATH. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
/** Where the screenshot is kept: CI sets ARTIFACTS_DIR to a directory it keeps. */
const ARTIFACTS = process.env.ARTIFACTS_DIR ?? path.join(tmpdir(), 'zaakregister-artifacts');

describe('the API docs page, in headless Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startRegistry(await BACKENDS[0].open(), { authorization: undefined });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
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
