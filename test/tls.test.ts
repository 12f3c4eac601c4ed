import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { consoleLogger, createRegistry, type Registry } from '../src/index.js';
import { https, TLS } from '../plugins/oauth/test-flow.js';
import { BACKENDS } from './helpers/backends.js';
import { testCatalog } from './helpers/registry.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

/** The protocol and cipher a TLS client with these settings agrees on, or the handshake's error. */
function handshake(port: number, options: ConnectionOptions): Promise<{ protocol: string | null; cipher: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ca: TLS.ca, servername: 'localhost', ...options }, () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name });
      socket.end();
    });
    socket.on('error', (error) => resolve({ error: error.message }));
  });
}

for (const backend of BACKENDS) {
  describe(`HTTPS serving on ${backend.name}`, () => {
    let registry: Registry;
    let port: number;

    before(async () => {
      registry = await createRegistry({ storage: await backend.open(), preset: 'none', catalog: testCatalog(), authorization: 'development', logger: consoleLogger('silent') });
      const server = await registry.listen(0, '127.0.0.1', { tls: { cert: TLS.serverCert, key: TLS.serverKey } });
      port = (server.address() as AddressInfo).port;
    });

    after(() => registry?.close());

    it('serves the API over TLS 1.3 when the client can', async () => {
      assert.equal((await https(`https://127.0.0.1:${port}/zaken/api/v1/zaken`, { headers: { 'accept-crs': 'EPSG:4326' } })).status, 200);
      assert.deepEqual(await handshake(port, {}), { protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384' });
    });

    it('accepts TLS 1.2 only with an NCSC "good" suite, and nothing older than TLS 1.2', async () => {
      assert.deepEqual(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), { protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256' });
      for (const ciphers of ['ECDHE-ECDSA-AES128-SHA256', 'ECDHE-ECDSA-AES256-SHA']) {
        assert.ok('error' in (await handshake(port, { maxVersion: 'TLSv1.2', ciphers })), ciphers);
      }
      assert.ok('error' in (await handshake(port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })));
    });
  });
}

describe('HTTPS from the command line', () => {
  it('serve --tls-cert/--tls-key/--tls-client-ca serves HTTPS; check-config takes plugins.oauth instead of client secrets', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-tls-'));
    const config = path.join(dir, 'config.json');
    const tlsDir = path.join(path.dirname(new URL(import.meta.url).pathname), '../plugins/oauth/test-tls');
    // check-config reads the files it names, as serve would.
    for (const file of ['server.pem', 'server-key.pem']) copyFileSync(path.join(tlsDir, file), path.join(dir, file));
    writeFileSync(
      config,
      JSON.stringify({
        applications: [{ clientIds: ['zaaksysteem'], label: 'Zaaksysteem', heeftAlleAutorisaties: true, autorisaties: [] }],
        plugins: { oauth: { issuers: ['https://login.example.nl'], audience: 'https://zaken.example.nl/zaken/api/v1', documentedFlow: { authorizationUrl: 'https://login.example.nl/auth', tokenUrl: 'https://login.example.nl/token' } } },
        tls: { cert: 'server.pem', key: 'server-key.pem' },
      }),
    );
    const check = spawnTs('src/cli.ts', ['check-config', '--config', config]);
    assert.equal(await exitCode(check), 0, check.output());
    assert.match(check.output(), /the configuration is valid/);

    const child = spawnTs('src/cli.ts', ['serve', '--development', '--port', '0', '--database', 'memory', '--tls-cert', `${tlsDir}/server.pem`, '--tls-key', `${tlsDir}/server-key.pem`, '--tls-client-ca', `${tlsDir}/ca.pem`]);
    try {
      const [, port] = await waitForOutput(child, /serving https:\/\/localhost:(\d+)/);
      const answer = await https(`https://127.0.0.1:${port}/`, { certificate: TLS.clientA });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.name, 'zaakregister');
    } finally {
      child.kill('SIGTERM');
      await exitCode(child);
    }
  });
});
