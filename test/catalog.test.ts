import assert from 'node:assert/strict';
import { compactVerify } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RemoteError, httpCatalog, staticCatalog } from '../src/index.js';

/** A real Catalogi API stand-in on 127.0.0.1, counting requests per path. */
async function catalogServer(): Promise<{ server: Server; base: string; hits: Map<string, number>; authorization: string[]; userAgents: string[] }> {
  const hits = new Map<string, number>();
  const authorization: string[] = [];
  const userAgents: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    authorization.push(String(req.headers.authorization ?? ''));
    userAgents.push(String(req.headers['user-agent'] ?? ''));
    const base = `http://${req.headers.host}`;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/zaaktypen/1') {
      return json(200, { url: `${base}/zaaktypen/1`, vertrouwelijkheidaanduiding: 'intern', statustypen: [`${base}/statustypen/1`, `${base}/statustypen/2`], roltypen: [] });
    }
    if (path.startsWith('/statustypen/')) return json(200, { url: `${base}${path}`, zaaktype: `${base}/zaaktypen/1`, volgnummer: Number(path.split('/')[2]) });
    if (path === '/geen-zaaktype') return json(200, { url: `${base}${path}`, naam: 'iets anders' });
    if (path === '/traag') return void setTimeout(() => json(200, {}), 1500);
    if (path === '/groot') return json(200, { data: 'x'.repeat(200_000) });
    // A redirect to a zaaktype this host does serve: following it would answer.
    if (path === '/verhuisd') {
      res.writeHead(302, { location: `${base}/zaaktypen/1` });
      return void res.end();
    }
    json(404, { detail: 'Niet gevonden' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, authorization, userAgents };
}

describe('catalog clients', () => {
  describe('httpCatalog against a real HTTP catalog', () => {
    let remote: Awaited<ReturnType<typeof catalogServer>>;
    before(async () => {
      remote = await catalogServer();
    });
    after(() => remote.server.close());
    const catalog = (options: Parameters<typeof httpCatalog>[0] = {}) =>
      httpCatalog({ allowedHosts: [new URL(remote.base).host], timeoutMs: 500, maxBytes: 100_000, ...options });
    const failure = async (promise: Promise<unknown>) => {
      const error = await promise.then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof RemoteError, `expected a RemoteError, got ${String(error)}`);
      return error.reason;
    };

    it('fetches a zaaktype and its statustypen, and caches them (concurrent lookups share one fetch)', async () => {
      const client = catalog();
      const [a, b] = await Promise.all([client.zaaktype(`${remote.base}/zaaktypen/1`), client.zaaktype(`${remote.base}/zaaktypen/1`)]);
      assert.equal(a.vertrouwelijkheidaanduiding, 'intern');
      assert.deepEqual(a, b);
      const statustypen = await client.listFor('statustype', a);
      assert.deepEqual(statustypen.map((s) => s.volgnummer), [1, 2]);
      await client.zaaktype(`${remote.base}/zaaktypen/1`);
      await client.listFor('statustype', a);
      assert.equal(remote.hits.get('/zaaktypen/1'), 1);
      assert.equal(remote.hits.get('/statustypen/1'), 1);
      assert.ok(remote.userAgents.length && remote.userAgents.every((agent) => agent === 'zaakregister'), 'the remote sees who calls');
    });

    it('refuses hosts outside the allow-list without connecting', async () => {
      const before = [...remote.hits.values()].reduce((a, b) => a + b, 0);
      assert.equal(await failure(httpCatalog({ allowedHosts: ['catalogi.example.nl'] }).zaaktype(`${remote.base}/zaaktypen/1`)), 'not-allowed');
      assert.equal(await failure(catalog().zaaktype('file:///etc/passwd')), 'not-allowed');
      assert.equal([...remote.hits.values()].reduce((a, b) => a + b, 0), before);
    });

    it('reports a non-200, a wrong shape, a timeout and an oversized answer', async () => {
      assert.equal(await failure(catalog().zaaktype(`${remote.base}/zaaktypen/onbekend`)), 'status');
      assert.equal(await failure(catalog().zaaktype(`${remote.base}/geen-zaaktype`)), 'invalid-resource');
      assert.equal(await failure(catalog().zaaktype(`${remote.base}/traag`)), 'timeout');
      assert.equal(await failure(catalog().zaaktype(`${remote.base}/groot`)), 'too-large');
    });

    it('does not follow a redirect: its status is the answer', async () => {
      const followed = remote.hits.get('/zaaktypen/1') ?? 0;
      assert.equal(await failure(catalog().zaaktype(`${remote.base}/verhuisd`)), 'status');
      assert.equal(remote.hits.get('/zaaktypen/1') ?? 0, followed);
    });

    it('signs a ZGW JWT for hosts with credentials', async () => {
      const host = new URL(remote.base).host;
      await catalog({ credentials: { [host]: { clientId: 'zaakregister', secret: 'geheim' } } }).get('statustype', `${remote.base}/statustypen/9`);
      const [, payload] = remote.authorization.at(-1)!.replace('Bearer ', '').split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      assert.equal(claims.client_id, 'zaakregister');
      assert.equal(claims.iss, 'zaakregister');
      assert.equal(typeof claims.iat, 'number');
    });

    it('signs one token per host for a minute: later calls reuse it', async () => {
      const host = new URL(remote.base).host;
      const client = catalog({ credentials: { [host]: { clientId: 'zaakregister', secret: 'geheim' } } });
      const sent = remote.authorization.length;
      await client.get('statustype', `${remote.base}/statustypen/9`);
      // Past the next whole second: a token signed anew would carry another `iat`.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await client.get('statustype', `${remote.base}/statustypen/10`);
      const [first, second] = remote.authorization.slice(sent);
      assert.ok(first?.startsWith('Bearer '), String(first));
      assert.equal(second, first);
      await compactVerify(first.replace('Bearer ', ''), new TextEncoder().encode('geheim'));
      // A minute on (the monotonic clock moved forward), the next call signs a fresh token.
      const now = performance.now.bind(performance);
      performance.now = () => now() + 61_000;
      try {
        await client.get('statustype', `${remote.base}/statustypen/11`);
      } finally {
        performance.now = now;
      }
      const third = remote.authorization.at(-1)!;
      assert.notEqual(third, first);
      const iat = (token: string) => JSON.parse(Buffer.from(token.replace('Bearer ', '').split('.')[1], 'base64url').toString()).iat;
      assert.ok(iat(third) > iat(first), 'the fresh token carries a later iat');
    });
  });

  describe('staticCatalog', () => {
    const client = staticCatalog({
      zaaktypen: [{ url: 'http://c/zt/1', vertrouwelijkheidaanduiding: 'openbaar', informatieobjecttypen: [] }],
      statustypen: [
        { url: 'http://c/st/2', zaaktype: 'http://c/zt/1', volgnummer: 2 },
        { url: 'http://c/st/1', zaaktype: 'http://c/zt/1', volgnummer: 1 },
      ],
      roltypen: [{ url: 'http://c/rt/1', zaaktype: 'http://c/zt/1', omschrijvingGeneriek: 'initiator' }],
    });

    it('derives the lists of a zaaktype from the types that point at it', async () => {
      const zaaktype = await client.zaaktype('http://c/zt/1');
      assert.deepEqual(zaaktype.statustypen, ['http://c/st/2', 'http://c/st/1']);
      assert.equal((await client.listFor('roltype', zaaktype))[0].omschrijvingGeneriek, 'initiator');
    });

    it('answers unknown URLs like a 404 and wrong kinds as invalid-resource', async () => {
      await assert.rejects(client.zaaktype('http://c/zt/9'), (e: RemoteError) => e.reason === 'status' && e.status === 404);
      await assert.rejects(client.zaaktype('http://c/st/1'), (e: RemoteError) => e.reason === 'invalid-resource');
    });
  });
});
