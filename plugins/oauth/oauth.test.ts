import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import { consoleLogger, createRegistry, staticAuthorizations, type Registry, type Storage } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { testCatalog, zaakInput, ZAAKTYPE, ZAAKTYPE_GEHEIM } from '../../test/helpers/registry.js';
import { exitCode, spawnTs, waitForOutput } from '../../test/helpers/spawn.js';
import { createAuthorizationServer } from '../../examples/authorization-server/index.js';
import { oauth, type OauthOptions } from './index.js';
import { authorize, DpopKey, https, TLS, token, type ClientCertificate, type FlowClient, type HttpsAnswer, type HttpsCall } from './test-flow.js';

const REGISTRY = 'https://zaakregister.test/zaken/api/v1';
const OTHER_RESOURCE = 'https://andere-registratie.test/api/v1';
const SCOPES = ['zaken.lezen', 'zaken.aanmaken', 'zaken.bijwerken', 'zaken.statussen.toevoegen', 'audittrails.lezen'];
const ALL_ZGW_SCOPES = [...SCOPES, 'zaken.verwijderen', 'zaken.heropenen', 'zaken.geforceerd-bijwerken'];
const USER = { id: 'u-123', name: 'Jan Jansen' };
/** An allowed issuer nobody listens for (port 1 on the loopback refuses connections). */
const UNREACHABLE_ISSUER = 'https://127.0.0.1:1';

interface AuthorizationServer {
  issuer: string;
  server: Server;
  /** The paths asked, in order. */
  requests: string[];
  signingKey: JWK;
  signingPrivateKey: CryptoKey;
}

async function rsaKey() {
  return generateKeyPair('PS256', { extractable: true });
}

/** The example authorization server on HTTPS at 127.0.0.1 (random port), asking for client certificates. */
async function startAuthorizationServer(clients: ClientMetadata[], accessTokenFormat: 'jwt' | 'opaque' = 'jwt'): Promise<AuthorizationServer> {
  const server = createServer({ cert: TLS.serverCert, key: TLS.serverKey, ca: TLS.ca, requestCert: true, rejectUnauthorized: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = await rsaKey();
  const signingKey = { ...(await exportJWK(keys.privateKey)), kid: `as-${Date.now()}` };
  const { handler } = createAuthorizationServer({
    issuer,
    resources: [REGISTRY, OTHER_RESOURCE],
    scopes: SCOPES,
    elevatedScopes: { 'zaken.verwijderen': ['beheer'] },
    clients,
    signingKey,
    users: { [USER.id]: { name: USER.name } },
    login: async () => USER.id,
    accessTokenFormat,
  });
  const requests: string[] = [];
  server.on('request', (req) => void requests.push(req.url ?? ''));
  server.on('request', handler);
  return { issuer, server, requests, signingKey, signingPrivateKey: keys.privateKey };
}

const confidential = async (clientId: string, extra: Partial<ClientMetadata> = {}) => {
  const keys = await rsaKey();
  const client: FlowClient = { clientId, redirectUri: `https://${clientId}.test/callback`, key: keys.privateKey };
  const metadata: ClientMetadata = {
    client_id: clientId,
    redirect_uris: [client.redirectUri],
    jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), alg: 'PS256', use: 'sig' }] },
    ...extra,
  };
  return { client, metadata };
};

describe('oauth: NL GOV profile against the example authorization server', function () {
  this.timeout(120_000);
  let as: AuthorizationServer;
  let otherAs: AuthorizationServer;
  /** Issues opaque access tokens, which the registry introspects. */
  let opaqueAs: AuthorizationServer;
  const clients: Record<string, FlowClient> = {};

  before(async () => {
    const made = await Promise.all([
      confidential('zaaksysteem'),
      confidential('beheer'),
      confidential('mtls-app', { tls_client_certificate_bound_access_tokens: true }),
      confidential('dpop-app'),
      confidential('zaakregister'),
    ]);
    const publicClient: FlowClient = { clientId: 'burger-app', redirectUri: 'https://burger-app.test/callback' };
    for (const { client } of made) clients[client.clientId] = client;
    clients['burger-app'] = publicClient;
    const metadata: ClientMetadata[] = [...made.map((m) => m.metadata), { client_id: 'burger-app', redirect_uris: [publicClient.redirectUri], token_endpoint_auth_method: 'none' }];
    [as, otherAs, opaqueAs] = await Promise.all([startAuthorizationServer(metadata), startAuthorizationServer(metadata), startAuthorizationServer(metadata, 'opaque')]);
  });

  after(async () => {
    for (const server of [as?.server, otherAs?.server, opaqueAs?.server]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
  });

  /** Authorization code → tokens, the whole flow; fails the test when a step does. */
  async function tokensFor(clientId: string, scope: string, options: { resource?: string; certificate?: ClientCertificate; dpop?: DpopKey; server?: AuthorizationServer } = {}) {
    const server = options.server ?? as;
    const client = clients[clientId];
    const outcome = await authorize(server.issuer, client, { scope, resource: options.resource ?? REGISTRY });
    assert.ok('code' in outcome, `authorization failed: ${JSON.stringify(outcome)}`);
    const answer = await token(
      server.issuer,
      client,
      { grant_type: 'authorization_code', code: outcome.code, redirect_uri: client.redirectUri, code_verifier: outcome.verifier, resource: options.resource ?? REGISTRY },
      options,
    );
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { access_token: string; refresh_token?: string; scope: string; token_type: string };
  }

  describe('the authorization server', () => {
    it('gives a confidential client a PS256 JWT access token for the registry with azp, after private_key_jwt authentication', async () => {
      const tokens = await tokensFor('zaaksysteem', 'zaken.lezen zaken.aanmaken');
      const claims = decodeJwt(tokens.access_token);
      assert.equal(claims.aud, REGISTRY);
      assert.equal(claims.azp, 'zaaksysteem');
      assert.equal(claims.sub, USER.id);
      assert.equal(claims.scope, 'zaken.lezen zaken.aanmaken');
      assert.ok(tokens.refresh_token, 'a refresh token');
    });

    it('refuses a client assertion signed with a key the client did not register', async () => {
      const client = clients.zaaksysteem;
      const outcome = await authorize(as.issuer, client, { scope: 'zaken.lezen', resource: REGISTRY });
      assert.ok('code' in outcome);
      const impostor = { ...client, key: (await rsaKey()).privateKey };
      const answer = await token(as.issuer, impostor, { grant_type: 'authorization_code', code: outcome.code, redirect_uri: client.redirectUri, code_verifier: outcome.verifier, resource: REGISTRY });
      assert.equal(answer.status, 401, answer.text);
      assert.equal(answer.body.error, 'invalid_client');
    });

    it('refuses a redirect URI that is not registered exactly', async () => {
      const client = clients.zaaksysteem;
      const outcome = await authorize(as.issuer, client, { scope: 'zaken.lezen', resource: REGISTRY, redirectUri: `${client.redirectUri}/other` });
      assert.ok('error' in outcome);
      assert.equal(outcome.status, 400);
    });

    it('refuses an authorization request without PKCE, and one with plain PKCE', async () => {
      for (const pkce of ['none', 'plain'] as const) {
        const outcome = await authorize(as.issuer, clients['burger-app'], { scope: 'zaken.lezen', resource: REGISTRY, pkce });
        assert.deepEqual(outcome, { error: 'invalid_request', status: 303 }, pkce);
      }
    });

    it('grants a higher-level scope only to a client permitted it', async () => {
      assert.equal((await tokensFor('zaaksysteem', 'zaken.lezen zaken.verwijderen')).scope, 'zaken.lezen');
      assert.equal((await tokensFor('beheer', 'zaken.lezen zaken.verwijderen')).scope, 'zaken.lezen zaken.verwijderen');
    });

    it('refreshes to fewer scopes, never to more (not to a higher level either)', async () => {
      const tokens = await tokensFor('beheer', 'zaken.lezen zaken.aanmaken');
      const reduced = await token(as.issuer, clients.beheer, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'zaken.lezen', resource: REGISTRY });
      assert.equal(reduced.status, 200, reduced.text);
      assert.equal(decodeJwt(reduced.body.access_token).scope, 'zaken.lezen');
      const higher = await token(as.issuer, clients.beheer, { grant_type: 'refresh_token', refresh_token: reduced.body.refresh_token ?? tokens.refresh_token!, scope: 'zaken.lezen zaken.verwijderen', resource: REGISTRY });
      assert.equal(higher.status, 400, higher.text);
      assert.equal(higher.body.error, 'invalid_scope');
    });
  });

  /** The registry's side: the example AS as issuer, the test clients' applications. */
  const registryOauth = (): OauthOptions => ({
    issuers: [as.issuer, UNREACHABLE_ISSUER],
    audience: REGISTRY,
    authorizations: staticAuthorizations([
      {
        clientIds: ['zaaksysteem', 'burger-app', 'mtls-app', 'dpop-app'],
        label: 'Zaaksysteem',
        heeftAlleAutorisaties: false,
        autorisaties: [{ component: 'zrc', scopes: ALL_ZGW_SCOPES, zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'geheim' }],
      },
      { clientIds: ['beheer'], label: 'Beheer', heeftAlleAutorisaties: true, autorisaties: [] },
    ]),
    fetch: { ca: TLS.ca },
  });

  for (const backend of BACKENDS) {
    describe(`the registry as protected resource on ${backend.name}`, () => {
      let registry: Registry;
      let base: string;

      before(async () => {
        registry = await createRegistry({
          storage: await backend.open(),
          preset: 'none',
          catalog: testCatalog(),
          logger: consoleLogger('silent'),
          plugins: [oauth(registryOauth())],
        });
        const server = await registry.listen(0, '127.0.0.1', { tls: { cert: TLS.serverCert, key: TLS.serverKey, clientCa: TLS.ca } });
        base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1`;
      });

      after(() => registry?.close());

      const call = (path: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; body?: string; certificate?: ClientCertificate } = {}): Promise<HttpsAnswer> =>
        https(base + path, {
          method: init.method,
          headers: { ...(init.json ? { 'content-type': 'application/json' } : {}), ...init.headers },
          body: init.json ? JSON.stringify(init.json) : init.body,
          certificate: init.certificate,
        });
      const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

      /** Another registry with these oauth options over TLS (by default on a database of its own); its zaken URL. */
      async function startAnother(options: OauthOptions, setup: { storage?: Storage; baseUrl?: string; clientCa?: Buffer } = {}) {
        const another = await createRegistry({ storage: setup.storage ?? (await backend.open()), baseUrl: setup.baseUrl, preset: 'none', catalog: testCatalog(), logger: consoleLogger('silent'), plugins: [oauth(options)] });
        const server = await another.listen(0, '127.0.0.1', { tls: { cert: TLS.serverCert, key: TLS.serverKey, clientCa: setup.clientCa } });
        return { registry: another, zaken: `https://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1/zaken` };
      }

      it('serves a client of the whole flow and records the user in the audit trail', async () => {
        const { access_token } = await tokensFor('zaaksysteem', 'zaken.lezen zaken.aanmaken audittrails.lezen');
        const created = await call('/zaken', { method: 'POST', json: zaakInput(), headers: { ...bearer(access_token), 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' } });
        assert.equal(created.status, 201, created.text);
        const read = await https(created.body.url.replace(/^https:\/\/[^/]+\/zaken\/api\/v1/, base), { headers: { ...bearer(access_token), 'accept-crs': 'EPSG:4326' } });
        assert.equal(read.status, 200, read.text);
        const trail = await call(`/zaken/${created.body.uuid}/audittrail`, { headers: bearer(access_token) });
        assert.equal(trail.status, 200, trail.text);
        assert.equal(trail.body[0].gebruikersId, USER.id);
        assert.equal(trail.body[0].gebruikersWeergave, USER.name);
        assert.equal(trail.body[0].applicatieWeergave, 'Zaaksysteem');
      });

      it('serves a public client that used PKCE', async () => {
        const { access_token } = await tokensFor('burger-app', 'zaken.lezen');
        const list = await call('/zaken', { headers: { ...bearer(access_token), 'accept-crs': 'EPSG:4326' } });
        assert.equal(list.status, 200, list.text);
      });

      it('asks for a token (RFC 6750 challenge) when there is none', async () => {
        const answer = await call('/zaken');
        assert.equal(answer.status, 401);
        assert.equal(answer.headers['www-authenticate'], 'Bearer');
      });

      it('refuses a token in the query, even beside a valid header', async () => {
        const { access_token } = await tokensFor('zaaksysteem', 'zaken.lezen');
        for (const headers of [{}, bearer(access_token)]) {
          const answer = await call(`/zaken?access_token=${access_token}`, { headers });
          assert.equal(answer.status, 401);
          assert.equal(answer.body.code, 'not_authenticated');
          assert.match(String(answer.headers['www-authenticate']), /^Bearer error="invalid_request"/);
        }
      });

      it('never takes a token from a form body (RFC 6750 §2.2 is not offered): the body is refused as not JSON', async () => {
        const { access_token } = await tokensFor('zaaksysteem', 'zaken.aanmaken');
        const answer = await call('/zaken', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ access_token }).toString() });
        assert.equal(answer.status, 415, answer.text);
        assert.equal(answer.body.code, 'unsupported_media_type');
        const anonymous = await call('/zaken', { headers: { 'accept-crs': 'EPSG:4326' } });
        assert.equal(anonymous.status, 401);
      });

      it('refuses a token for another audience, from another issuer, expired, or with a bad signature', async () => {
        const other = await tokensFor('zaaksysteem', 'zaken.lezen', { resource: OTHER_RESOURCE });
        const foreign = await tokensFor('zaaksysteem', 'zaken.lezen', { server: otherAs });
        const valid = await tokensFor('zaaksysteem', 'zaken.lezen');
        const now = Math.floor(Date.now() / 1000);
        const expired = await new SignJWT({ ...decodeJwt(valid.access_token), iat: now - 3600, exp: now - 1800 })
          .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: as.signingKey.kid })
          .sign(as.signingPrivateKey);
        const forged = await new SignJWT({ ...decodeJwt(valid.access_token) })
          .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: as.signingKey.kid })
          .sign(otherAs.signingPrivateKey);
        const otherClient = await new SignJWT({ ...decodeJwt(valid.access_token), azp: 'iemand-anders' })
          .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: as.signingKey.kid })
          .sign(as.signingPrivateKey);
        const cases: [string, string, RegExp][] = [
          ['azp other than client_id', otherClient, /verschillende clients/],
          ['another audience', other.access_token, /niet voor deze registratie/],
          ['another issuer', foreign.access_token, /uitgever/],
          ['expired', expired, /verlopen/],
          ['forged', forged, /handtekening/],
          ['no JWT', 'opaque-token-value', /geen JWT/],
        ];
        for (const [name, accessToken, detail] of cases) {
          const answer = await call('/zaken', { headers: { ...bearer(accessToken), 'accept-crs': 'EPSG:4326' } });
          assert.equal(answer.status, 401, name);
          assert.equal(answer.body.code, 'invalid-token', name);
          assert.match(answer.body.detail, detail, name);
          assert.match(String(answer.headers['www-authenticate']), /^Bearer error="invalid_token"/, name);
        }
      });

      it('answers 503 when an allowed issuer cannot be reached for its keys', async () => {
        const now = Math.floor(Date.now() / 1000);
        const unreachable = await new SignJWT({ iss: UNREACHABLE_ISSUER, aud: REGISTRY, client_id: 'zaaksysteem', scope: 'zaken.lezen', iat: now, exp: now + 300 })
          .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: 'k' })
          .sign(as.signingPrivateKey);
        const answer = await call('/zaken', { headers: { ...bearer(unreachable), 'accept-crs': 'EPSG:4326' } });
        assert.equal(answer.status, 503);
        assert.equal(answer.body.code, 'authorization-server-unavailable');
      });

      it('answers insufficient_scope naming the scope an operation needs', async () => {
        const { access_token } = await tokensFor('zaaksysteem', 'zaken.lezen');
        const answer = await call('/zaken', { method: 'POST', json: zaakInput(), headers: { ...bearer(access_token), 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' } });
        assert.equal(answer.status, 403);
        assert.equal(answer.body.code, 'insufficient-scope');
        assert.equal(answer.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="zaken.aanmaken"');
      });

      it('still applies the application: a zaaktype it is not authorized for is refused (zrc-006)', async () => {
        const { access_token } = await tokensFor('zaaksysteem', 'zaken.aanmaken');
        const answer = await call('/zaken', { method: 'POST', json: zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }), headers: { ...bearer(access_token), 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' } });
        assert.equal(answer.status, 403, answer.text);
        assert.equal(answer.body.code, 'permission_denied');
      });

      it('lets only a client granted the higher-level scope destroy a zaak', async () => {
        const maker = await tokensFor('zaaksysteem', 'zaken.aanmaken zaken.verwijderen');
        const created = await call('/zaken', { method: 'POST', json: zaakInput(), headers: { ...bearer(maker.access_token), 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' } });
        assert.equal(created.status, 201, created.text);
        const refused = await call(`/zaken/${created.body.uuid}`, { method: 'DELETE', headers: bearer(maker.access_token) });
        assert.equal(refused.status, 403);
        assert.match(String(refused.headers['www-authenticate']), /scope="zaken.verwijderen"/);
        const admin = await tokensFor('beheer', 'zaken.verwijderen');
        const destroyed = await call(`/zaken/${created.body.uuid}`, { method: 'DELETE', headers: bearer(admin.access_token) });
        assert.equal(destroyed.status, 204, destroyed.text);
      });

      it('accepts a certificate-bound token only over mutual TLS with that certificate', async () => {
        const { access_token } = await tokensFor('mtls-app', 'zaken.lezen', { certificate: TLS.clientA });
        assert.ok((decodeJwt(access_token).cnf as Record<string, unknown>)['x5t#S256'], 'the token is bound');
        const headers = { ...bearer(access_token), 'accept-crs': 'EPSG:4326' };
        assert.equal((await call('/zaken', { headers, certificate: TLS.clientA })).status, 200);
        for (const certificate of [TLS.clientB, undefined]) {
          const answer = await call('/zaken', { headers, certificate });
          assert.equal(answer.status, 401);
          assert.equal(answer.body.code, 'invalid-token');
        }
      });

      it('accepts a DPoP-bound token only with a fresh proof of its key, for this request', async () => {
        const key = await DpopKey.create(await generateKeyPair('ES256'));
        const { access_token, token_type } = await tokensFor('dpop-app', 'zaken.lezen', { dpop: key });
        assert.equal(token_type, 'DPoP');
        const url = `${base}/zaken`;
        const proof = await key.proof('GET', url, access_token);
        const send = (authorization: string, dpop?: string) => call('/zaken', { headers: { authorization, 'accept-crs': 'EPSG:4326', ...(dpop ? { dpop } : {}) } });
        assert.equal((await send(`DPoP ${access_token}`, proof)).status, 200);
        const otherKey = await DpopKey.create(await generateKeyPair('ES256'));
        const refused: [string, Promise<HttpsAnswer>][] = [
          ['a replayed proof', send(`DPoP ${access_token}`, proof)],
          ['no proof', send(`DPoP ${access_token}`)],
          ['as a bearer token', send(`Bearer ${access_token}`, await key.proof('GET', url, access_token))],
          ['a proof of another key', send(`DPoP ${access_token}`, await otherKey.proof('GET', url, access_token))],
          ['a proof for another method', send(`DPoP ${access_token}`, await key.proof('POST', url, access_token))],
          ['a proof for another URL', send(`DPoP ${access_token}`, await key.proof('GET', `${base}/rollen`, access_token))],
          ['a proof without ath', send(`DPoP ${access_token}`, await key.proof('GET', url))],
        ];
        for (const [name, answer] of refused) {
          const { status, body, headers } = await answer;
          assert.equal(status, 401, name);
          assert.equal(body.code, 'invalid-token', name);
          assert.match(String(headers['www-authenticate']), /error="invalid_token"/, name);
        }
      });

      it('refuses a DPoP proof at a second instance on the same database once the first accepted it', async () => {
        // A second instance behind the same public URL (a load balancer), on the first one's database.
        const shared = Object.create(registry.services.storage, { close: { value: async () => {} } });
        const { registry: second, zaken: secondZaken } = await startAnother(registryOauth(), { storage: shared, baseUrl: base });
        try {
          const key = await DpopKey.create(await generateKeyPair('ES256'));
          const { access_token } = await tokensFor('dpop-app', 'zaken.lezen', { dpop: key });
          const proof = await key.proof('GET', `${base}/zaken`, access_token);
          const headers = { authorization: `DPoP ${access_token}`, 'accept-crs': 'EPSG:4326', dpop: proof };
          assert.equal((await call('/zaken', { headers })).status, 200);
          const replayed = await https(secondZaken, { headers });
          assert.equal(replayed.status, 401, replayed.text);
          assert.match(replayed.body.detail, /al eerder gebruikt/);
          // A fresh proof is served by the second instance: the refusal was the replay, not the setup.
          const fresh = await https(secondZaken, { headers: { ...headers, dpop: await key.proof('GET', `${base}/zaken`, access_token) } });
          assert.equal(fresh.status, 200, fresh.text);
        } finally {
          await second.close();
        }
      });

      it('behind a TLS-terminating proxy, takes the client certificate from the configured header only', async () => {
        const { registry: behindProxy, zaken: proxied } = await startAnother({ ...registryOauth(), trustedCertificateHeader: 'X-Client-Cert' }, { clientCa: TLS.ca });
        try {
          const { access_token } = await tokensFor('mtls-app', 'zaken.lezen', { certificate: TLS.clientA });
          const headers = { ...bearer(access_token), 'accept-crs': 'EPSG:4326' };
          const withHeader = (pem: Buffer) => ({ ...headers, 'x-client-cert': encodeURIComponent(pem.toString('utf8')) });
          assert.equal((await https(proxied, { headers: withHeader(TLS.clientA.cert) })).status, 200);
          assert.equal((await https(proxied, { headers: withHeader(TLS.clientB.cert) })).status, 401);
          // The connection's own certificate does not count when a proxy is trusted to name it.
          assert.equal((await https(proxied, { headers, certificate: TLS.clientA })).status, 401);
          assert.equal((await https(proxied, { headers: { ...headers, 'x-client-cert': 'geen-certificaat' } })).body.code, 'invalid-token');
        } finally {
          await behindProxy.close();
        }
      });

      it('introspects an opaque token at its issuer (RFC 7662) and holds it to the same rules', async () => {
        const { registry: introspecting, zaken } = await startAnother({
          ...registryOauth(),
          issuers: [as.issuer, opaqueAs.issuer],
          introspection: { issuer: opaqueAs.issuer, clientId: 'zaakregister', privateKey: clients.zaakregister.key! },
        });
        try {
          const { access_token } = await tokensFor('zaaksysteem', 'zaken.lezen', { server: opaqueAs });
          assert.throws(() => decodeJwt(access_token), 'an opaque token');
          const headers = { ...bearer(access_token), 'accept-crs': 'EPSG:4326' };
          const introspections = () => opaqueAs.requests.filter((url) => url.includes('introspect')).length;
          const before = introspections();
          // Concurrent requests with one new token ask the issuer once; later ones not at all (cached until exp).
          const answers = await Promise.all([1, 2, 3].map(() => https(zaken, { headers })));
          assert.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
          assert.equal((await https(zaken, { headers })).status, 200);
          assert.equal(introspections() - before, 1);
          const needsScope = await https(zaken, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-crs': 'EPSG:4326' }, body: JSON.stringify(zaakInput()) });
          assert.equal(needsScope.status, 403);
          assert.equal(needsScope.body.code, 'insufficient-scope');
          const elsewhere = await tokensFor('zaaksysteem', 'zaken.lezen', { server: opaqueAs, resource: OTHER_RESOURCE });
          const unknown = await https(zaken, { headers: { ...headers, ...bearer('an-opaque-token-the-issuer-never-issued') } });
          assert.equal(unknown.status, 401);
          assert.match(unknown.body.detail, /niet \(meer\) geldig/);
          const otherAudience = await https(zaken, { headers: { ...headers, ...bearer(elsewhere.access_token) } });
          assert.equal(otherAudience.status, 401);
          assert.match(otherAudience.body.detail, /niet voor deze registratie/);
        } finally {
          await introspecting.close();
        }
      });

      it('documents the oauth2 scheme and each operation\'s scopes from the table it checks', async () => {
        const document = (await call('/openapi.json')).body;
        const scheme = document.components.securitySchemes.oauth2;
        assert.equal(scheme.type, 'oauth2');
        assert.equal(scheme.flows.authorizationCode.tokenUrl, `${as.issuer}/token`);
        assert.ok(scheme.flows.authorizationCode.scopes['zaken.verwijderen']);
        assert.deepEqual(document.paths['/zaken'].post.security, [{ 'JWT-Claims': ['zaken.aanmaken'] }, { oauth2: ['zaken.aanmaken'] }]);
        assert.deepEqual(document.paths['/zaken/{uuid}'].delete.security.at(-1), { oauth2: ['zaken.verwijderen'] });
      });
    });
  }

  describe('configured from the CLI config file', () => {
    const tlsDir = new URL('./test-tls/', import.meta.url).pathname;
    let dir: string;
    before(async () => {
      // Every file relative to the config file, as an operator writes it.
      dir = mkdtempSync(path.join(tmpdir(), 'zaakregister-oauth-cli-'));
      for (const file of ['server.pem', 'server-key.pem', 'ca.pem']) copyFileSync(path.join(tlsDir, file), path.join(dir, file));
      writeFileSync(path.join(dir, 'zaakregister.jwk.json'), JSON.stringify(await exportJWK(clients.zaakregister.key!)));
    });

    /** `zaakregister serve --config` with these oauth options and `tls` from the directory; its API base URL. */
    async function serveWith(name: string, oauthConfig: Record<string, unknown>, tls: Record<string, string>) {
      const config = path.join(dir, `${name}.json`);
      const applications = [
        { clientIds: ['zaaksysteem', 'mtls-app'], label: 'Zaaksysteem', heeftAlleAutorisaties: false, autorisaties: [{ component: 'zrc', scopes: ALL_ZGW_SCOPES, zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'geheim' }] },
      ];
      const catalog = path.join(dir, 'catalog.json');
      writeFileSync(catalog, JSON.stringify({ zaaktypen: [{ url: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar', informatieobjecttypen: [] }] }));
      writeFileSync(config, JSON.stringify({ applications, catalog: { type: 'static', file: 'catalog.json' }, plugins: { oauth: { audience: REGISTRY, fetch: { caFile: 'ca.pem' }, ...oauthConfig } }, tls }));
      const child = spawnTs('src/cli.ts', ['serve', '--config', config, '--port', '0', '--database', 'memory']);
      const [, port] = await waitForOutput(child, /serving https:\/\/localhost:(\d+)/);
      return { child, zaken: `https://127.0.0.1:${port}/zaken/api/v1/zaken` };
    }
    const stop = async (child: ChildProcess) => {
      child.kill('SIGTERM');
      await exitCode(child);
    };
    const read = (zaken: string, accessToken: string, extra: Partial<HttpsCall> = {}) =>
      https(zaken, { ...extra, headers: { authorization: `Bearer ${accessToken}`, 'accept-crs': 'EPSG:4326', ...extra.headers } });

    it('tls.clientCa asks for client certificates (mTLS-bound tokens), introspection.privateKeyFile authenticates the registry', async () => {
      const { child, zaken } = await serveWith('mtls', { issuers: [as.issuer, opaqueAs.issuer], introspection: { issuer: opaqueAs.issuer, clientId: 'zaakregister', privateKeyFile: 'zaakregister.jwk.json' } }, { cert: 'server.pem', key: 'server-key.pem', clientCa: 'ca.pem' });
      try {
        const bound = await tokensFor('mtls-app', 'zaken.lezen', { certificate: TLS.clientA });
        assert.equal((await read(zaken, bound.access_token, { certificate: TLS.clientA })).status, 200);
        assert.equal((await read(zaken, bound.access_token, { certificate: TLS.clientB })).status, 401);
        const opaque = await tokensFor('zaaksysteem', 'zaken.lezen', { server: opaqueAs });
        const introspected = await read(zaken, opaque.access_token);
        assert.equal(introspected.status, 200, introspected.text);
      } finally {
        await stop(child);
      }
    });

    it('trustedCertificateHeader takes the certificate from the proxy\'s header', async () => {
      const { child, zaken } = await serveWith('proxy', { issuers: [as.issuer], trustedCertificateHeader: 'X-Client-Cert' }, { cert: 'server.pem', key: 'server-key.pem' });
      try {
        const bound = await tokensFor('mtls-app', 'zaken.lezen', { certificate: TLS.clientA });
        const header = (pem: Buffer) => ({ 'x-client-cert': encodeURIComponent(pem.toString('utf8')) });
        assert.equal((await read(zaken, bound.access_token, { headers: header(TLS.clientA.cert) })).status, 200);
        assert.equal((await read(zaken, bound.access_token, { headers: header(TLS.clientB.cert) })).status, 401);
      } finally {
        await stop(child);
      }
    });
  });
});

describe('oauth: the issuer rotates its signing key', function () {
  this.timeout(60_000);
  /** An issuer of only metadata and JWKS over HTTPS, counting JWKS fetches; tokens are signed here. */
  let issuer: string;
  let server: Server;
  let published: JWK[] = [];
  let jwksFetches = 0;
  let registry: Registry;
  let zaken: string;

  const key = async (kid: string) => {
    const pair = await rsaKey();
    return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'PS256', use: 'sig' } };
  };
  const tokenSignedBy = (signer: { kid: string; privateKey: CryptoKey }) =>
    new SignJWT({ client_id: 'zaaksysteem', scope: 'zaken.lezen' })
      .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: signer.kid })
      .setIssuer(issuer)
      .setAudience(REGISTRY)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(signer.privateKey);
  const read = async (accessToken: string) => {
    const response = await fetch(zaken, { headers: { authorization: `Bearer ${accessToken}`, 'accept-crs': 'EPSG:4326' } });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };

  before(async () => {
    server = createServer({ cert: TLS.serverCert, key: TLS.serverKey }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/jwks') {
        jwksFetches++;
        res.end(JSON.stringify({ keys: published }));
      } else if (req.url === '/.well-known/oauth-authorization-server') {
        res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token` }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    registry = await createRegistry({
      storage: await BACKENDS[0].open(),
      preset: 'none',
      catalog: testCatalog(),
      logger: consoleLogger('silent'),
      plugins: [oauth({ issuers: [issuer], audience: REGISTRY, fetch: { ca: TLS.ca }, jwks: { cooldownSeconds: 1, maxAgeSeconds: 3 }, authorizations: staticAuthorizations([{ clientIds: ['zaaksysteem'], label: 'Zaaksysteem', heeftAlleAutorisaties: true, autorisaties: [] }]) })],
    });
    const listening = await registry.listen(0, '127.0.0.1');
    zaken = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/zaken/api/v1/zaken`;
  });

  after(async () => {
    await registry?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('refetches the JWKS for a new kid, not again for an unknown one within the cooldown, and once it is older than maxAgeSeconds', async () => {
    const first = await key('key-1');
    published = [first.jwk];
    const firstAnswer = await read(await tokenSignedBy(first));
    assert.equal(firstAnswer.status, 200, JSON.stringify(firstAnswer.body));
    assert.equal((await read(await tokenSignedBy(first))).status, 200);
    assert.equal(jwksFetches, 1, 'the set is cached');

    // Rotation, later than the cooldown after the last fetch: the issuer publishes a new key and
    // signs with it; the old one is withdrawn.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await key('key-2');
    published = [second.jwk];
    assert.equal((await read(await tokenSignedBy(second))).status, 200);
    assert.equal(jwksFetches, 2, 'refetched once for the unknown kid');

    // A kid the issuer never published: refused, and the issuer is not asked again within the cooldown.
    const stranger = await key('key-unknown');
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await read(await tokenSignedBy(stranger));
      assert.equal(answer.status, 401);
      assert.equal(answer.body.code, 'invalid-token');
    }
    assert.equal(jwksFetches, 2, 'rate-limited refresh');

    // Past maxAgeSeconds the set is fetched again, also for a kid it holds.
    await new Promise((resolve) => setTimeout(resolve, 3100));
    assert.equal((await read(await tokenSignedBy(second))).status, 200);
    assert.equal(jwksFetches, 3, 'refetched once the set is older than maxAgeSeconds');
  });
});

describe('oauth: an authorization server that trickles its answer', function () {
  this.timeout(60_000);
  it('is cut off after fetch.timeoutMs for the whole exchange: 503, not a request that hangs', async () => {
    const sockets = new Set<import('node:net').Socket>();
    // Headers at once, then one byte of the body every 100 ms: a socket idle timeout never fires.
    const trickler = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    trickler.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(trickler.address() as AddressInfo).port}`;
    const registry = await createRegistry({
      storage: await BACKENDS[0].open(),
      preset: 'none',
      catalog: testCatalog(),
      logger: consoleLogger('silent'),
      plugins: [
        oauth({
          issuers: [issuer],
          audience: REGISTRY,
          fetch: { timeoutMs: 500 },
          documentedFlow: { authorizationUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token` },
          authorizations: staticAuthorizations([{ clientIds: ['zaaksysteem'], label: 'Zaaksysteem', heeftAlleAutorisaties: true, autorisaties: [] }]),
        }),
      ],
    });
    try {
      const listening = await registry.listen(0, '127.0.0.1');
      const { privateKey } = await rsaKey();
      const accessToken = await new SignJWT({ client_id: 'zaaksysteem', scope: 'zaken.lezen' })
        .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid: 'k' })
        .setIssuer(issuer)
        .setAudience(REGISTRY)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      const answer = await fetch(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/zaken/api/v1/zaken`, {
        headers: { authorization: `Bearer ${accessToken}`, 'accept-crs': 'EPSG:4326' },
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(answer.status, 503);
      assert.equal(((await answer.json()) as { code: string }).code, 'authorization-server-unavailable');
    } finally {
      await registry.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => trickler.close(resolve));
    }
  });
});
