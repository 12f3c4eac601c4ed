import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { createRegistry, jsonLogger, pinoLogger, type Registry } from '../src/index.js';

/** A problem's `type` and `code`, and the catalogue row its anchor names, followed as a client would. */
async function followType(response: Response): Promise<{ code: string; type: string; status: number; row: string | undefined }> {
  const { type, code } = (await response.json()) as { type: string; code: string };
  const page = await fetch(type);
  const html = await page.text();
  const anchor = new URL(type).hash.slice(1);
  const row = html.match(new RegExp(`<tr>\\s*<td><code id="${anchor}">[^]*?</tr>`))?.[0];
  return { code, type, status: page.status, row };
}

describe('problem type links in a host app that mounts only registry.router', () => {
  let registry: Registry;
  let host: Server;
  let base: string;
  const apps = testApps();

  before(async () => {
    registry = await createRegistry({
      storage: await BACKENDS[0].open(),
      authorization: apps.authorization,
      logger: pinoLogger(jsonLogger({ level: 'silent' })),
    });
    // The README's embedding: the router at the base path, nothing else of the registry's.
    const app = express().use('/zaken/api/v1', registry.router);
    host = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => host.once('listening', resolve));
    base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/zaken/api/v1`;
  });
  after(async () => {
    host?.close();
    await registry?.close();
  });

  it("answers a problem's type with the error's row in the catalogue, for an unknown resource", async () => {
    const followed = await followType(await fetch(`${base}/zaken/not-a-uuid`, { headers: await apps.headers('alles') }));
    assert.equal(followed.code, 'not_found');
    assert.equal(followed.type, `${base}/docs/errors#not_found`);
    assert.equal(followed.status, 200);
    assert.match(followed.row ?? '', /<td>404<\/td>/);
  });

  it('answers it without a token too: a client that failed authentication can read why', async () => {
    const followed = await followType(await fetch(`${base}/zaken`));
    assert.equal(followed.status, 200, followed.type);
    assert.ok(followed.row, `the catalogue has a row for ${followed.code}`);
  });

  it('serves the API reference page and its assets at <base>/docs/', async () => {
    assert.equal((await fetch(`${base}/docs`, { redirect: 'manual' })).headers.get('location'), '/zaken/api/v1/docs/');
    const page = await fetch(`${base}/docs/`);
    assert.equal(page.status, 200);
    for (const asset of (await page.text()).matchAll(/(?:src|href)="([^"]+)"/g)) {
      assert.equal((await fetch(new URL(asset[1], `${base}/docs/`))).status, 200, asset[1]);
    }
    const document = (await (await fetch(`${base}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    assert.ok(document.paths['/zaken']);
  });

  it('serves the guides beside it: links between them land on their headings, links to other files of the repository lead there', async () => {
    const embedding = await (await fetch(`${base}/docs/embedding`)).text();
    // A link to another guide's section (`operations.md#health-and-readiness` in the markdown).
    const [, target] = embedding.match(/<a href="(operations#health-and-readiness)">/) ?? [];
    assert.ok(target, 'the embedding guide links to the operations guide on health and readiness');
    const operations = await fetch(new URL(target, `${base}/docs/`));
    assert.equal(operations.status, 200);
    assert.match(await operations.text(), /<h2 id="health-and-readiness">Health and readiness<\/h2>/);
    // A file that is not served beside the guides (a plugin's README) leads to the repository.
    assert.match(embedding, /<a href="https:\/\/github\.com\/zaakregister\/zaakregister\/blob\/main\/plugins\/versioning\/README\.md">/);
    assert.doesNotMatch(embedding, /href="\.\.\//);
  });
});
