import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { consoleLogger, createRegistry, staticAuthorizations, type Logger, type Registry } from '../../src/index.js';
import { testCatalog } from '../../test/helpers/registry.js';
import { exitCode, spawnTs, waitForOutput } from '../../test/helpers/spawn.js';
import { issuerServer, type IssuerServer } from './issuer-server.js';
import { oauth, type OauthOptions } from './index.js';
import { TLS } from './test-flow.js';

const REGISTRY = 'https://zaken.test/zaken/api/v1';
const here = (name: string) => new URL(`./test-tls/${name}`, import.meta.url);
const OTHER_CA = here('other-ca.pem').pathname;
const OTHER_SERVER = { cert: readFileSync(here('other-server.pem')), key: readFileSync(here('other-server-key.pem')) };
const everything = () => staticAuthorizations([{ clientIds: ['zaaksysteem'], label: 'Zaaksysteem', heeftAlleAutorisaties: true, autorisaties: [] }]);

async function read(zaken: string, token: string): Promise<{ status: number; body: { code?: string; detail?: string } }> {
  const response = await fetch(zaken, { headers: { authorization: `Bearer ${token}`, 'accept-crs': 'EPSG:4326' } });
  return { status: response.status, body: (await response.json()) as { code?: string; detail?: string } };
}

/** A registry with the oauth plugin on HTTP at 127.0.0.1; what it logged at warn and above. */
async function registryWith(options: Partial<OauthOptions> & Pick<OauthOptions, 'issuers'>): Promise<{ registry: Registry; zaken: string; base: string; warnings: string[] }> {
  const warnings: string[] = [];
  const quiet = consoleLogger('silent');
  const logger: Logger = { ...quiet, warn: (message) => void warnings.push(message), error: (message) => void warnings.push(message) };
  const registry = await createRegistry({
    storage: 'memory',
    preset: 'none',
    catalog: testCatalog(),
    logger,
    plugins: [oauth({ audience: REGISTRY, fetch: { ca: TLS.ca }, authorizations: everything(), ...options })],
  });
  const { port } = (await registry.listen(0, '127.0.0.1')).address() as AddressInfo;
  return { registry, base: `http://127.0.0.1:${port}`, zaken: `http://127.0.0.1:${port}/zaken/api/v1/zaken`, warnings };
}

describe('oauth: issuers on other CAs, issuers down at start-up, introspected token types', function () {
  this.timeout(60_000);

  it("fetch.ca adds to Node's trusted CAs: an issuer on the private CA and one on a CA from NODE_EXTRA_CA_CERTS both verify", async function () {
    // Two registry processes, started on a machine that may be busy.
    this.timeout(240_000);
    const privateCa = await issuerServer({ cert: TLS.serverCert, key: TLS.serverKey });
    const extraCa = await issuerServer(OTHER_SERVER);
    const start = async (env: NodeJS.ProcessEnv) => {
      const child = spawnTs('test/fixtures/oauth-two-issuers-child.ts', [privateCa.issuer, extraCa.issuer, REGISTRY], env);
      const [, zaken] = await waitForOutput(child, /serving (\S+)/);
      return { child, zaken };
    };
    const withExtra = await start({ NODE_EXTRA_CA_CERTS: OTHER_CA });
    const without = await start({ NODE_EXTRA_CA_CERTS: '' });
    try {
      assert.equal((await read(withExtra.zaken, await privateCa.token(REGISTRY))).status, 200, 'the CA of fetch.ca');
      const viaExtra = await read(withExtra.zaken, await extraCa.token(REGISTRY));
      assert.equal(viaExtra.status, 200, `the CA of NODE_EXTRA_CA_CERTS: ${JSON.stringify(viaExtra.body)}`);
      // The control: without NODE_EXTRA_CA_CERTS nothing trusts the second CA.
      assert.equal((await read(without.zaken, await extraCa.token(REGISTRY))).body.code, 'authorization-server-unavailable');
      assert.equal((await read(without.zaken, await privateCa.token(REGISTRY))).status, 200);
    } finally {
      for (const { child } of [withExtra, without]) {
        child.kill('SIGTERM');
        await exitCode(child);
      }
      await privateCa.close();
      await extraCa.close();
    }
  });

  it('starts while its first issuer is down, answers its tokens 503 and says so in /readyz and the log, then serves them once the issuer is up', async () => {
    // A port that nothing listens on, for the issuer to come up on later.
    const probe = await issuerServer({ cert: TLS.serverCert, key: TLS.serverKey });
    const { issuer } = probe;
    await probe.close();
    const { registry, zaken, base, warnings } = await registryWith({ issuers: [issuer] });
    let later: IssuerServer | undefined;
    try {
      assert.ok(warnings.some((line) => line.includes(issuer) && line.includes('start-up')), warnings.join('\n'));
      const ready = (await (await fetch(`${base}/readyz`)).json()) as { status: string; details?: { oauth?: string } };
      assert.equal(ready.status, 'ready', 'the registry serves its other clients');
      assert.match(ready.details?.oauth ?? '', new RegExp(`issuer ${issuer.replace(/[.:/]/g, '\\$&')} not fetched`));

      later = await issuerServer({ cert: TLS.serverCert, key: TLS.serverKey }, Number(new URL(issuer).port));
      assert.equal((await read(zaken, await later.token(REGISTRY))).body.code, 'authorization-server-unavailable', 'until its metadata is fetched again');
      const deadline = Date.now() + 30_000;
      let answer = await read(zaken, await later.token(REGISTRY));
      while (answer.status !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        answer = await read(zaken, await later.token(REGISTRY));
      }
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const readyAfter = (await (await fetch(`${base}/readyz`)).json()) as { details?: unknown };
      assert.equal(readyAfter.details, undefined);
    } finally {
      await registry.close();
      await later?.close();
    }
  });

  it('refuses an introspected token that is not an access token, also one with the right aud', async () => {
    const as = await issuerServer({ cert: TLS.serverCert, key: TLS.serverKey });
    const { privateKey } = await import('jose').then((jose) => jose.generateKeyPair('PS256', { extractable: true }));
    const { registry, zaken } = await registryWith({ issuers: [as.issuer], introspection: { issuer: as.issuer, clientId: 'zaakregister', privateKey: await (await import('jose')).exportJWK(privateKey) } });
    try {
      const exp = Math.floor(Date.now() / 1000) + 300;
      const answer = { active: true, iss: as.issuer, aud: REGISTRY, client_id: 'zaaksysteem', scope: 'zaken.lezen', exp };
      as.introspection = { ...answer, token_type: 'refresh_token' };
      const refresh = await read(zaken, 'opaque-refresh-token');
      assert.equal(refresh.status, 401);
      assert.equal(refresh.body.code, 'invalid-token');
      assert.match(refresh.body.detail ?? '', /geen access token/);
      as.introspection = { ...answer, token_type: 'Bearer' };
      assert.equal((await read(zaken, 'opaque-access-token')).status, 200);
    } finally {
      await registry.close();
      await as.close();
    }
  });
});
