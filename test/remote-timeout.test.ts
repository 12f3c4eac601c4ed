import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { RemoteError, httpCatalog, pgliteStorage, remoteClient } from '../src/index.js';
import { startRegistry, zaakInput } from './helpers/registry.js';
import { listen, stop } from './helpers/zgw-servers.js';

/**
 * A remote on an allowed host that answers its headers at once and then trickles the body, one byte
 * a second (`/trickle`), or never answers at all (`/hang`). `remote.timeoutMs` bounds the whole
 * exchange: both end as the same timeout, well before the body would be complete.
 */
describe('A remote that trickles', function () {
  // A guard, not a measurement: without one deadline over the body the trickle takes a minute.
  this.timeout(20_000);
  const TIMEOUT_MS = 300;
  let origin: string;
  let server: Awaited<ReturnType<typeof listen>>['server'];
  const open = new Set<ServerResponse>();

  before(async () => {
    ({ server, origin } = await listen((req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      if (req.url === '/hang') return;
      const body = Buffer.from(JSON.stringify({ url: `${origin}${req.url}`, vertrouwelijkheidaanduiding: 'openbaar', padding: 'x'.repeat(40) }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      // The headers and the first byte now (Node would hold the headers back until the first write).
      res.flushHeaders();
      let sent = 0;
      const trickle = () => {
        if (sent < body.length && !res.destroyed) res.write(body.subarray(sent, ++sent));
      };
      trickle();
      const timer = setInterval(trickle, 1000);
      res.on('close', () => clearInterval(timer));
    }));
  });
  after(async () => {
    for (const res of open) res.destroy();
    await stop(server);
  });

  it('is a timeout of the remote client, as a host that hangs is', async () => {
    const client = remoteClient({ allowedHosts: [new URL(origin).host], timeoutMs: TIMEOUT_MS });
    for (const path of ['/trickle', '/hang']) {
      const error = await client.getJson(`${origin}${path}`).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof RemoteError, `${path}: ${String(error)}`);
      assert.equal(error.reason, 'timeout', `${path}: ${error.message}`);
    }
  });

  it('is answered 400 bad-url for the field that named it, the answer a hanging host gets', async () => {
    const remote = { allowedHosts: [new URL(origin).host], timeoutMs: TIMEOUT_MS };
    const api = await startRegistry(await pgliteStorage({ dataDir: 'memory' }), { remote, catalog: httpCatalog({ remote: remoteClient(remote) }) });
    try {
      for (const path of ['/trickle', '/hang']) {
        const response = await api.request('/zaken', { method: 'POST', json: zaakInput({ zaaktype: `${origin}/zaaktypen${path}` }) });
        assert.equal(response.status, 400, `${path}: ${response.text}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['zaaktype', 'bad-url']], path);
      }
    } finally {
      await api.close();
    }
  });
});
