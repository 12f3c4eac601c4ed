import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { catalogRouter } from '../src/catalog/catalog-router.js';

describe('catalogRouter: static catalog data as a read-only Catalogi API', () => {
  let server: Server;
  let origin: string;
  const zaaktype = (n: number) => `http://catalog.test/catalogi/api/v1/zaaktypen/${n}`;
  before(async () => {
    // 150 statustypen of the first zaaktype, one of the second: more than one page.
    const data = () => ({
      zaaktypen: [1, 2].map((n) => ({ url: zaaktype(n), vertrouwelijkheidaanduiding: 'openbaar' })),
      statustypen: [
        ...Array.from({ length: 150 }, (_, i) => ({ url: `http://catalog.test/catalogi/api/v1/statustypen/a${i}`, zaaktype: zaaktype(1), volgnummer: i + 1 })),
        { url: 'http://catalog.test/catalogi/api/v1/statustypen/b0', zaaktype: zaaktype(2), volgnummer: 1 },
      ],
    });
    const app = express().use(catalogRouter(data));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const get = async (path: string) => {
    const response = await fetch(`${origin}${path}`);
    return { status: response.status, body: (response.status === 200 ? await response.json() : undefined) as any };
  };

  it('pages a list by 100 with next and previous, filtered by ?zaaktype=, and serves each resource with its zaaktype lists', async () => {
    const filter = `zaaktype=${encodeURIComponent(zaaktype(1))}`;
    const first = await get(`/catalogi/api/v1/statustypen?${filter}`);
    assert.equal(first.body.count, 150);
    assert.equal(first.body.results.length, 100);
    assert.equal(first.body.previous, null);
    assert.equal(first.body.next, `${origin}/catalogi/api/v1/statustypen?${filter}&page=2`);
    const second = await get(new URL(first.body.next).pathname + new URL(first.body.next).search);
    assert.equal(second.body.results.length, 50);
    assert.equal(second.body.next, null);
    assert.equal(second.body.previous, `${origin}/catalogi/api/v1/statustypen?${filter}&page=1`);
    assert.equal((await get(`/catalogi/api/v1/statustypen?${filter}&page=3`)).status, 404);
    assert.equal((await get(`/catalogi/api/v1/statustypen?zaaktype=${encodeURIComponent(zaaktype(2))}`)).body.count, 1);
    assert.equal((await get('/catalogi/api/v1/statustypen')).body.count, 151);

    const secondZaaktype = await get('/catalogi/api/v1/zaaktypen/2');
    assert.deepEqual(secondZaaktype.body.statustypen, ['http://catalog.test/catalogi/api/v1/statustypen/b0']);
    assert.equal((await get('/catalogi/api/v1/statustypen/b0')).body.volgnummer, 1);
    assert.equal((await get('/catalogi/api/v1/statustypen/c0')).status, 404);
  });
});
