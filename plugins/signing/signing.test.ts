import assert from 'node:assert/strict';
import { X509Certificate, constants, createHash, createPrivateKey, createPublicKey, sign as rsaSign, verify as rsaVerify } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import compression from 'compression';
import express from 'express';
import { FlattenedSign } from 'jose';
import { caching } from '../../src/index.js';
import { loadConfig } from '../../src/config.js';
import { configuredPlugins } from '../../src/presets.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { signRequest, signingKey, verifyResponse, verificationKeys, KeyRing, SigningFailure } from './client.js';
import { signing, clientKeyRing, clientKeys } from './index.js';
import { HTTP_HEADERS_MECHANISM, digestOf, protectedHeader, signMessage, signingTime } from './jws.js';

const fixture = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
const REGISTRY_KEY = fixture('registry.key.pem');
const REGISTRY_CERT = fixture('registry.cert.pem');
const CLIENT_KEY = fixture('client.key.pem');
const CLIENT_CERT = fixture('client.cert.pem');
const SHORT_KEY = fixture('short.key.pem');
const SHORT_CERT = fixture('short.cert.pem');

const clientSigner = signingKey({ privateKey: CLIENT_KEY, certificate: CLIENT_CERT });
/** The same key as a JWK with a kid, registered for another application. */
const otherAppJwk = { ...createPublicKey(REGISTRY_KEY).export({ format: 'jwk' }), kid: 'other-app-1' };
const otherAppSigner = signingKey({ privateKey: REGISTRY_KEY, kid: 'other-app-1' });
const registryKeys = [{ certificate: REGISTRY_CERT }];
const x5tS256 = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

/** One request with exactly these headers (repeated ones as arrays), over node:http. */
function send(url: string, method: string, headers: Record<string, string | string[]> = {}, body?: Buffer | string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    if (body !== undefined && lower['content-length'] === undefined) lower['content-length'] = String(Buffer.byteLength(body));
    const req = httpRequest(url, { method, headers: lower }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (response: RawResponse) => JSON.parse(response.body.toString('utf8'));
const headersOf = (response: RawResponse) => {
  const all: Record<string, string[]> = {};
  for (let index = 0; index < response.rawHeaders.length; index += 2) (all[response.rawHeaders[index]!.toLowerCase()] ??= []).push(response.rawHeaders[index + 1]!);
  return all;
};
const verifyRaw = (method: string, url: string, response: RawResponse) =>
  verifyResponse({ method, url, headers: headersOf(response), body: response.body }, { keys: registryKeys });

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A base64url JSON protected header, as another implementation would write it. */
const encodeHeader = (header: Record<string, unknown>) => Buffer.from(JSON.stringify(header)).toString('base64url');

describe('signing: keys', () => {
  it('refuses RSA keys under 2048 bits, to sign with and to verify with', () => {
    assert.throws(() => signingKey({ privateKey: SHORT_KEY, certificate: SHORT_CERT }), /1024 bits/);
    assert.throws(() => verificationKeys({ certificate: SHORT_CERT }), /1024 bits/);
    assert.throws(() => clientKeys({ short: [{ certificate: SHORT_CERT }] }), /1024 bits/);
  });

  it('identifies a certificate by its x5t#S256 and a JWK by its kid, from files too', () => {
    const [fromCertificate] = verificationKeys({ file: new URL('fixtures/client.cert.pem', import.meta.url).pathname });
    assert.equal(fromCertificate!.x5tS256, x5tS256(CLIENT_CERT));
    const ring = new KeyRing(clientKeys({ a: [{ certificate: CLIENT_CERT }], b: [{ jwks: { keys: [otherAppJwk] } }] }));
    assert.equal(ring.find({ 'x5t#S256': x5tS256(CLIENT_CERT) })?.owner, 'a');
    assert.equal(ring.find({ kid: 'other-app-1' })?.owner, 'b');
    assert.equal(ring.find({ kid: 'nobody' }), undefined);
  });

  it('sends the certificate in x5c only with includeCertificate', async () => {
    const message = { target: 'get /zaken/api/v1/zaken', header: () => [] };
    const x5cOf = async (signer: ReturnType<typeof signingKey>) =>
      JSON.parse(Buffer.from((await signMessage(signer, message))['Message-Signature'].split('.')[0]!, 'base64url').toString()).x5c;
    assert.deepEqual(await x5cOf(signingKey({ privateKey: REGISTRY_KEY, certificate: REGISTRY_CERT, includeCertificate: true })), [new X509Certificate(REGISTRY_CERT).raw.toString('base64')]);
    assert.equal(await x5cOf(signingKey({ privateKey: REGISTRY_KEY, certificate: REGISTRY_CERT })), undefined);
  });

  it('is configured from the CLI config file, key files relative to it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'signing-config-'));
    const fixtures = path.relative(dir, new URL('fixtures', import.meta.url).pathname);
    const file = path.join(dir, 'config.json');
    const signingConfig = {
      signResponses: { privateKeyFile: `${fixtures}/registry.key.pem`, certificateFile: `${fixtures}/registry.cert.pem` },
      verifyRequests: { default: 'optional', methods: { post: 'required' } },
      clients: { development: [{ file: `${fixtures}/client.cert.pem` }] },
    };
    writeFileSync(file, JSON.stringify({ development: true, plugins: { signing: signingConfig } }));
    const config = loadConfig(file);
    assert.ok(configuredPlugins(config.plugins).some((plugin) => plugin.name === 'signing'));
    writeFileSync(file, JSON.stringify({ development: true, plugins: { signing: { ...signingConfig, verifyRequests: 'always' } } }));
    assert.throws(() => loadConfig(file), /verifyRequests/);
  });

  it('refuses a certificate that does not belong to the signing key', () => {
    assert.throws(() => signingKey({ privateKey: CLIENT_KEY, certificate: REGISTRY_CERT }), /does not belong/);
  });
});

for (const backend of BACKENDS) {
  describe(`signing plugin on ${backend.name}`, () => {
    let api: TestServer;
    let zakenUrl: string;
    const ring = clientKeyRing({ development: [{ certificate: CLIENT_CERT }], 'other-app': [{ jwk: otherAppJwk }] });

    before(async () => {
      api = await startRegistry(await backend.open(), {
        plugins: [
          caching(),
          signing({
            signResponses: { privateKey: REGISTRY_KEY, certificate: REGISTRY_CERT },
            verifyRequests: { default: 'optional', methods: { post: 'required' }, operations: { zaak__zoek: 'optional' } },
            clients: ring,
          }),
        ],
      });
      zakenUrl = `${api.base}/zaken`;
    });
    after(() => api.registry.close());

    /** A signed `POST /zaken` as the client helper makes it, sent through node:http. */
    async function signedCreate(overrides: { headers?: Record<string, string>; pars?: string[]; signer?: typeof clientSigner } = {}) {
      const body = JSON.stringify(zaakInput());
      const headers = await signRequest(overrides.signer ?? clientSigner, {
        method: 'POST',
        url: zakenUrl,
        headers: { 'Content-Type': 'application/json', 'Accept-Crs': 'EPSG:4326', 'Content-Crs': 'EPSG:4326', ...overrides.headers },
        body,
        pars: overrides.pars ?? ['accept-crs', 'content-crs'],
      });
      return { body, headers };
    }
    const problemCode = (response: RawResponse) => json(response).code as string;

    it('round trip: the client helper signs a request with fetch, the registry verifies it and signs its answer, which the helper verifies', async () => {
      const { body, headers } = await signedCreate();
      const response = await fetch(zakenUrl, { method: 'POST', headers, body });
      const bytes = new Uint8Array(await response.arrayBuffer());
      assert.equal(response.status, 201, Buffer.from(bytes).toString());
      const key = await verifyResponse({ method: 'POST', url: zakenUrl, headers: response.headers, body: bytes }, { keys: registryKeys });
      assert.equal(key.x5tS256, x5tS256(REGISTRY_CERT));
      assert.match(response.headers.get('cache-control')!, /no-transform/);
      const pars = JSON.parse(Buffer.from(response.headers.get('message-signature')!.split('.')[0]!, 'base64url').toString()).sigD.pars;
      assert.deepEqual(pars, ['(request-target)', 'content-type', 'content-length', 'api-version', 'location', 'digest']);
    });

    it('signs reads, HEAD and 304 answers over their headers, and errors', async () => {
      const created = await fetch(zakenUrl, { method: 'POST', ...(await signedCreate()) });
      const zaak = (await created.json()) as { url: string };
      const read = await send(zaak.url, 'GET');
      assert.equal(read.status, 200);
      await verifyRaw('GET', zaak.url, read);
      const head = await send(zaak.url, 'HEAD');
      assert.equal(head.body.length, 0);
      assert.equal(head.headers.digest, read.headers.digest, 'HEAD carries the digest of the representation');
      await verifyRaw('HEAD', zaak.url, head);
      const notModified = await send(zaak.url, 'GET', { 'If-None-Match': String(read.headers.etag) });
      assert.equal(notModified.status, 304);
      await verifyRaw('GET', zaak.url, notModified);
      const missing = await send(`${zakenUrl}/00000000-0000-4000-8000-000000000000`, 'GET');
      assert.equal(missing.status, 404);
      await verifyRaw('GET', `${zakenUrl}/00000000-0000-4000-8000-000000000000`, missing);
    });

    it('signs the answers no operation gives: an unknown path, a method the path lacks, a body that cannot be read', async () => {
      const cases = [
        { url: `${api.base}/nergens`, method: 'GET', status: 404 },
        { url: zakenUrl, method: 'DELETE', status: 405 },
        { url: zakenUrl, method: 'POST', status: 415, headers: { 'content-type': 'text/plain' }, body: 'geen json' },
        { url: zakenUrl, method: 'POST', status: 400, headers: { 'content-type': 'application/json' }, body: '{"kapot' },
      ];
      for (const { url, method, status, headers, body } of cases) {
        const response = await send(url, method, headers, body);
        assert.equal(response.status, status, `${method} ${url}`);
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
        await verifyRaw(method, url, response);
      }
    });

    it('the client helper refuses a response whose body, covered header or request target changed', async () => {
      const created = await fetch(zakenUrl, { method: 'POST', ...(await signedCreate()) });
      const { url } = (await created.json()) as { url: string };
      const read = await send(url, 'GET');
      const tamperedBody = Buffer.from(read.body);
      tamperedBody[10] ^= 1;
      await assert.rejects(verifyRaw('GET', url, { ...read, body: tamperedBody }), (error: SigningFailure) => error.reason === 'digest-mismatch');
      const rawHeaders = read.rawHeaders.map((value) => (value === read.headers['api-version'] ? '9.9.9' : value));
      await assert.rejects(verifyRaw('GET', url, { ...read, rawHeaders }), (error: SigningFailure) => error.reason === 'invalid');
      await assert.rejects(verifyRaw('GET', `${url}?x=1`, read), (error: SigningFailure) => error.reason === 'invalid');
      await assert.rejects(
        verifyResponse({ method: 'GET', url, headers: headersOf(read), body: read.body }, { keys: [{ certificate: CLIENT_CERT }] }),
        (error: SigningFailure) => error.reason === 'key-unknown',
      );
    });

    it('verifies a gzip-encoded request over the bytes as sent', async () => {
      const body = gzipSync(JSON.stringify(zaakInput()));
      const headers = await signRequest(clientSigner, { method: 'POST', url: zakenUrl, headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body });
      const response = await send(zakenUrl, 'POST', headers, body);
      assert.equal(response.status, 201, response.body.toString());
    });

    it('required: an unsigned POST is a 401 signature-missing; optional: an unsigned GET is served, a badly signed one is not', async () => {
      const unsigned = await send(zakenUrl, 'POST', { 'Content-Type': 'application/json', 'Accept-Crs': 'EPSG:4326', 'Content-Crs': 'EPSG:4326' }, JSON.stringify(zaakInput()));
      assert.equal(unsigned.status, 401);
      assert.equal(problemCode(unsigned), 'signature-missing');
      assert.match(String(unsigned.headers['content-type']), /problem\+json/);
      assert.equal((await send(zakenUrl, 'GET')).status, 200);
      const badlySigned = await send(zakenUrl, 'GET', { 'Payload-Signature': 'abc..def' });
      assert.equal(badlySigned.status, 401);
      assert.equal(problemCode(badlySigned), 'signature-missing', 'a Message-Signature must come with it');
    });

    it("lets an operation's setting win over its method's; leaves OPTIONS unsigned", async () => {
      const search = await send(`${zakenUrl}/_zoek`, 'POST', { 'content-type': 'application/json' }, '{}');
      assert.equal(search.status, 200, search.body.toString());
      await verifyRaw('POST', `${zakenUrl}/_zoek`, search);
      const create = await send(zakenUrl, 'POST', { 'content-type': 'application/json' }, JSON.stringify(zaakInput()));
      assert.equal(problemCode(create), 'signature-missing');
      const options = await send(zakenUrl, 'OPTIONS');
      assert.equal(options.status, 204);
      assert.equal(options.headers['message-signature'], undefined);
    });

    it('refuses every tampering with a distinct code', async () => {
      type Signed = { body: string; headers: Record<string, string | string[]> };
      type Case = [string, () => Promise<RawResponse>, number, string];
      /** A signed `POST /zaken`, sent as `change` leaves it after signing. */
      const tampered = (change: (signed: Signed) => Signed, overrides?: Parameters<typeof signedCreate>[0]) => async () => {
        const sent = change(await signedCreate(overrides));
        return send(zakenUrl, 'POST', sent.headers, sent.body);
      };
      const withHeaders = (headers: Record<string, string | string[]>) => tampered((signed) => ({ body: signed.body, headers: { ...signed.headers, ...headers } }));
      const changedBody = (body: string) => body.replace('2024-03-01', '2024-03-02');
      /** A `POST /zaken` signed (by the helper's `signMessage`) as if at `time`. */
      const signedAt = (time: number) => async () => {
        const body = JSON.stringify(zaakInput());
        const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length), host: new URL(zakenUrl).host };
        const signatures = await signMessage(clientSigner, { target: `post ${new URL(zakenUrl).pathname}`, header: (name) => (headers[name] ? [headers[name]] : []), body }, [], new Date(time));
        return send(zakenUrl, 'POST', { 'content-type': 'application/json', ...signatures }, body);
      };
      const cases: Case[] = [
        ['one body byte changed', tampered(({ body, headers }) => ({ headers, body: changedBody(body) })), 401, 'signature-digest-mismatch'],
        ['body and Digest changed together', tampered(({ body, headers }) => ({ headers: { ...headers, Digest: digestOf(changedBody(body)) }, body: changedBody(body) })), 401, 'signature-invalid'],
        ['a covered header changed', withHeaders({ 'Accept-Crs': 'EPSG:28992' }), 401, 'signature-invalid'],
        ['a covered header removed', tampered(({ body, headers: { 'Accept-Crs': _removed, ...rest } }) => ({ headers: rest, body })), 401, 'signature-covered-header-missing'],
        ['a covered header duplicated', withHeaders({ 'Content-Type': ['application/json', 'application/json'] }), 401, 'signature-invalid'],
        ['a content header left out of the signature', withHeaders({ 'Content-Encoding': 'identity' }), 401, 'signature-header-not-covered'],
        ['a par that is not allowed', tampered((signed) => signed, { headers: { 'X-Custom': 'a' }, pars: ['accept-crs', 'content-crs', 'x-custom'] }), 401, 'signature-par-not-allowed'],
        ...(['Payload-Signature', 'Message-Signature'] as const).map(
          (name): Case => [`${name} twice`, tampered(({ body, headers }) => ({ headers: { ...headers, [name]: [headers[name] as string, headers[name] as string] }, body })), 400, 'signature-duplicated'],
        ),
        ['a value that is no detached JWS', tampered(({ body, headers }) => ({ headers: { ...headers, 'Message-Signature': (headers['Message-Signature'] as string).replace('..', '.x.') }, body })), 400, 'signature-malformed'],
        ['a key of another application', tampered((signed) => signed, { signer: otherAppSigner }), 401, 'signature-key-not-client'],
        ['an unknown key', tampered((signed) => signed, { signer: signingKey({ privateKey: REGISTRY_KEY, kid: 'unknown' }) }), 401, 'signature-key-unknown'],
        ['a stale signing time', signedAt(Date.now() - 3600_000), 401, 'signature-time-invalid'],
        ['a signing time further ahead than maxSkewSeconds', signedAt(Date.now() + 3600_000), 401, 'signature-time-invalid'],
        ['a Digest without SHA-256', withHeaders({ Digest: 'MD5=HUXZLQLMuI/KZ5KDcJPcOA==' }), 400, 'signature-malformed'],
      ];
      for (const [what, attempt, status, code] of cases) {
        const response = await attempt();
        assert.equal(response.status, status, `${what}: ${response.body.toString()}`);
        assert.equal(problemCode(response), code, what);
      }
    });

    describe('a detached JWS built step by step, without the plugin', () => {
      const key = createPrivateKey(CLIENT_KEY);
      const sigT = () => signingTime(new Date());
      /** Signs `lines` with RSA-PSS SHA-256, salt length 32, under `header`, as RFC 7797 defines for b64 false. */
      const detached = (header: Record<string, unknown>, lines: string[], signWith = key, hash = 'sha256') => {
        const encoded = encodeHeader(header);
        const signature = rsaSign(hash, Buffer.from(`${encoded}.${lines.join('\n')}`), { key: signWith, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
        return `${encoded}..${signature.toString('base64url')}`;
      };
      const jades = (pars: string[], extra: Record<string, unknown> = {}) => ({
        alg: 'PS256',
        b64: false,
        crit: ['b64', 'sigT', 'sigD'],
        sigT: sigT(),
        sigD: { mId: HTTP_HEADERS_MECHANISM, pars },
        'x5t#S256': x5tS256(CLIENT_CERT),
        ...extra,
      });
      /** A signed request with both signatures made by hand; `payloadHeader` changes the payload signature's protected header. */
      async function handSigned(payloadHeader: Record<string, unknown> = {}, signWith = key) {
        const body = JSON.stringify(zaakInput());
        const url = new URL(zakenUrl);
        const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
        const payloadSignature = detached(jades(['digest'], payloadHeader), [`digest: ${digest}`], signWith);
        const messageSignature = detached(
          jades(['(request-target)', 'host', 'content-type', 'content-length', 'digest']),
          [`(request-target): post ${url.pathname}`, `host: ${url.host}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(body)}`, `digest: ${digest}`],
        );
        return send(zakenUrl, 'POST', { 'Content-Type': 'application/json', Digest: digest, 'Payload-Signature': payloadSignature, 'Message-Signature': messageSignature }, body);
      }

      it('verifies with the plugin', async () => {
        const response = await handSigned();
        assert.equal(response.status, 201, response.body.toString());
      });

      it('is refused with another alg, b64 missing from crit, another sigD mechanism, or a 1024-bit key', async () => {
        const rs256 = await handSigned({ alg: 'RS256' });
        assert.equal(problemCode(rs256), 'signature-algorithm-not-allowed');
        const noB64 = await handSigned({ crit: ['sigT', 'sigD'] });
        assert.equal(problemCode(noB64), 'signature-protected-header-invalid');
        const encodedPayload = await handSigned({ b64: true });
        assert.equal(problemCode(encodedPayload), 'signature-protected-header-invalid');
        const otherMechanism = await handSigned({ sigD: { mId: 'http://uri.etsi.org/19182/ObjectIdByURI', pars: ['digest'] } });
        assert.equal(problemCode(otherMechanism), 'signature-protected-header-invalid');
        const short = await handSigned({ 'x5t#S256': x5tS256(SHORT_CERT) }, createPrivateKey(SHORT_KEY));
        assert.equal(problemCode(short), 'signature-key-unknown', 'a short key cannot even be registered');
        const wrongKey = await handSigned({}, createPrivateKey(REGISTRY_KEY));
        assert.equal(problemCode(wrongKey), 'signature-invalid');
      });

      it('a jose-made RS256 signature with the right key is refused too', async () => {
        const body = JSON.stringify(zaakInput());
        const { headers } = await signedCreate();
        const digest = digestOf(body);
        const rs256 = await new FlattenedSign(new TextEncoder().encode(`digest: ${digest}`))
          .setProtectedHeader({ ...protectedHeader(clientSigner, ['digest'], new Date()), alg: 'RS256' } as never)
          .sign(key, { crit: { sigT: true, sigD: true } });
        const response = await send(zakenUrl, 'POST', { ...headers, 'Payload-Signature': `${rs256.protected}..${rs256.signature}` }, body);
        assert.equal(problemCode(response), 'signature-algorithm-not-allowed');
      });

      it("the registry's response signatures verify by hand", async () => {
        const read = await send(zakenUrl, 'GET');
        const header = (name: string) => headersOf(read)[name]!.join(', ');
        assert.equal(header('digest'), `SHA-256=${createHash('sha256').update(read.body).digest('base64')}`);
        const [encoded, empty, signature] = header('message-signature').split('.');
        assert.equal(empty, '');
        const decoded = JSON.parse(Buffer.from(encoded!, 'base64url').toString());
        assert.deepEqual(decoded.crit, ['b64', 'sigT', 'sigD']);
        assert.equal(decoded.alg, 'PS256');
        assert.equal(decoded.b64, false);
        const input = decoded.sigD.pars.map((par: string) => (par === '(request-target)' ? `${par}: get ${new URL(zakenUrl).pathname}` : `${par}: ${header(par)}`)).join('\n');
        const ok = rsaVerify('sha256', Buffer.from(`${encoded}.${input}`), { key: new X509Certificate(REGISTRY_CERT).publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }, Buffer.from(signature!, 'base64url'));
        assert.equal(ok, true);
      });
    });

    it('declares the headers in the OpenAPI document where enabled', async () => {
      const document = (await api.request('/openapi.json')).body;
      const create = document.paths['/zaken'].post;
      const parameter = (operation: { parameters: { name: string; required: boolean }[] }, name: string) => operation.parameters.find((p) => p.name === name);
      assert.equal(parameter(create, 'Payload-Signature')?.required, true);
      assert.equal(parameter(create, 'Message-Signature')?.required, true);
      assert.equal(parameter(document.paths['/zaken/{uuid}'].get, 'Digest')?.required, false, 'optional on reads');
      assert.ok(document.paths['/zaken/{uuid}'].get.responses['200'].headers['Message-Signature']);
      assert.ok(create.responses['201'].headers['Payload-Signature']);
      // Errors and 304s are signed too, so every documented response declares the headers.
      const unsigned: string[] = [];
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>)) {
        for (const [method, operation] of Object.entries(item)) {
          for (const [status, response] of Object.entries(operation.responses)) {
            for (const name of ['Digest', 'Payload-Signature', 'Message-Signature']) if (!(response.headers && name in response.headers)) unsigned.push(`${method} ${path} ${status} ${name}`);
          }
        }
      }
      assert.deepEqual(unsigned, []);
      assert.ok(document.paths['/zaken/{uuid}'].get.responses['304']);
    });

    it('rotation: keys replaced at run time take effect without a restart', async () => {
      ring.replace(clientKeys({ development: [{ jwk: otherAppJwk }] }));
      try {
        const old = await signedCreate();
        assert.equal(problemCode(await send(zakenUrl, 'POST', old.headers, old.body)), 'signature-key-unknown');
        const rotated = await signedCreate({ signer: otherAppSigner });
        assert.equal((await send(zakenUrl, 'POST', rotated.headers, rotated.body)).status, 201);
      } finally {
        ring.replace(clientKeys({ development: [{ certificate: CLIENT_CERT }], 'other-app': [{ jwk: otherAppJwk }] }));
      }
    });

    describe('behind a host app with compression and a proxy that adds headers', () => {
      let host: Server;
      let proxy: Server;
      let proxyBase: string;

      before(async () => {
        const app = express();
        app.use(compression({ threshold: 0 }));
        app.get('/plain', (_req, res) => res.type('text/plain').send('compressible '.repeat(100)));
        api.registry.mount(app);
        const hostBase = await listen((host = createServer(app)));
        proxy = createServer((req, res) => {
          const upstream = httpRequest(`${hostBase}${req.url}`, { method: req.method, headers: { ...req.headers, via: '1.1 test-proxy', 'x-forwarded-for': '127.0.0.1' } }, (answer) => {
            res.writeHead(answer.statusCode!, { ...answer.headers, via: '1.1 test-proxy', 'x-cache': 'MISS' });
            answer.pipe(res);
          });
          req.pipe(upstream);
        });
        proxyBase = await listen(proxy);
      });
      after(async () => {
        await new Promise((resolve) => proxy.close(resolve));
        await new Promise((resolve) => host.close(resolve));
      });

      it('a signed request through the proxy verifies, and so does the answer', async () => {
        const url = `${proxyBase}${new URL(zakenUrl).pathname}`;
        const body = JSON.stringify(zaakInput());
        const headers = await signRequest(clientSigner, { method: 'POST', url, headers: { 'Content-Type': 'application/json', 'Accept-Encoding': 'gzip' }, body });
        const response = await send(url, 'POST', headers, body);
        assert.equal(response.status, 201, response.body.toString());
        assert.equal(response.headers.via, '1.1 test-proxy');
        assert.equal((await send(`${proxyBase}/plain`, 'GET', { 'Accept-Encoding': 'gzip' })).headers['content-encoding'], 'gzip', 'the host app compresses');
        assert.equal(response.headers['content-encoding'], undefined, 'no-transform keeps compression off the signed bytes');
        await verifyRaw('POST', url, response);
        const zaakUrl = json(response).url as string;
        assert.ok(zaakUrl.startsWith(proxyBase), 'the proxy keeps the Host header');
        const read = await send(zaakUrl, 'GET', { 'Accept-Encoding': 'gzip' });
        assert.equal(read.status, 200);
        await verifyRaw('GET', zaakUrl, read);
      });
    });
  });
}
