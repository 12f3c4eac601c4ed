/**
 * `zaakregister/testing`: what a plugin's tests need, with real parts only. A registry on memory
 * storage with a static catalog on a real HTTP server, ZGW JWTs for applications with the scopes and
 * zaaktypen a test gives them, an OAuth issuer minting access tokens for the `oauth` plugin, stand-in
 * remote registries on 127.0.0.1 that record what they receive, and assertions on
 * `application/problem+json` answers.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
// Through the package's own name: the host's plugins and this module then share one copy of the core
// (one `ProblemError` class), in CommonJS as in ES modules.
import { consoleLogger, createRegistry, signZgwJwt, staticAuthorizations, staticCatalog, type Applicatie, type Registry, type RegistryOptions, type StaticCatalogData } from 'zaakregister';

const CATALOGUS = 'http://catalogus.test/catalogi/api/v1';

/** The test catalog's types: one open zaaktype with statustypen, a resultaattype and roltypen, and a secret one. */
export const TEST_TYPES = {
  zaaktype: `${CATALOGUS}/zaaktypen/11111111-1111-4111-8111-111111111111`,
  zaaktypeGeheim: `${CATALOGUS}/zaaktypen/22222222-2222-4222-8222-222222222222`,
  statustypeStart: `${CATALOGUS}/statustypen/31111111-1111-4111-8111-111111111111`,
  statustypeEind: `${CATALOGUS}/statustypen/32222222-2222-4222-8222-222222222222`,
  resultaattype: `${CATALOGUS}/resultaattypen/41111111-1111-4111-8111-111111111111`,
  roltypeInitiator: `${CATALOGUS}/roltypen/51111111-1111-4111-8111-111111111111`,
  roltypeBehandelaar: `${CATALOGUS}/roltypen/52222222-2222-4222-8222-222222222222`,
} as const;

/** An RSIN for `bronorganisatie` and `verantwoordelijkeOrganisatie` (passes the 11-test). */
export const TEST_RSIN = '517439943';

/** The data of the test catalog (`TEST_TYPES`), to extend or pass to `staticCatalog`. */
export function testCatalogData(): StaticCatalogData {
  return {
    zaaktypen: [
      { url: TEST_TYPES.zaaktype, vertrouwelijkheidaanduiding: 'openbaar', informatieobjecttypen: [] },
      { url: TEST_TYPES.zaaktypeGeheim, vertrouwelijkheidaanduiding: 'geheim', statustypen: [], informatieobjecttypen: [] },
    ],
    statustypen: [
      { url: TEST_TYPES.statustypeStart, zaaktype: TEST_TYPES.zaaktype, volgnummer: 1, omschrijving: 'Ontvangen' },
      { url: TEST_TYPES.statustypeEind, zaaktype: TEST_TYPES.zaaktype, volgnummer: 2, omschrijving: 'Afgehandeld' },
    ],
    resultaattypen: [{ url: TEST_TYPES.resultaattype, zaaktype: TEST_TYPES.zaaktype, omschrijving: 'Toegekend' }],
    roltypen: [
      { url: TEST_TYPES.roltypeInitiator, zaaktype: TEST_TYPES.zaaktype, omschrijving: 'Aanvrager', omschrijvingGeneriek: 'initiator' },
      { url: TEST_TYPES.roltypeBehandelaar, zaaktype: TEST_TYPES.zaaktype, omschrijving: 'Behandelaar', omschrijvingGeneriek: 'behandelaar' },
    ],
  };
}

/** A zaak's create body of the test zaaktype, with `overrides`. */
export function zaakInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { zaaktype: TEST_TYPES.zaaktype, bronorganisatie: TEST_RSIN, verantwoordelijkeOrganisatie: TEST_RSIN, startdatum: '2024-03-01', ...overrides };
}

/** What a test application may do: all (`heeftAlleAutorisaties`), or these scopes on these zaaktypen. */
export interface TestApplication {
  /** Its client id, the JWT's `iss` and `client_id`. */
  clientId: string;
  /** `true`: every operation on every zaak. */
  all?: boolean;
  scopes?: string[];
  /** Default: both zaaktypen of the test catalog. */
  zaaktypen?: string[];
  /** Default `zeer_geheim`. */
  maxVertrouwelijkheidaanduiding?: string;
}

/** The Autorisaties API's `Applicatie` of a test application. */
export function testApplicatie(application: TestApplication): Applicatie {
  return {
    clientIds: [application.clientId],
    label: application.clientId,
    heeftAlleAutorisaties: application.all ?? false,
    autorisaties: (application.zaaktypen ?? [TEST_TYPES.zaaktype, TEST_TYPES.zaaktypeGeheim]).map((zaaktype) => ({
      component: 'zrc',
      scopes: application.scopes ?? [],
      zaaktype,
      maxVertrouwelijkheidaanduiding: application.maxVertrouwelijkheidaanduiding ?? 'zeer_geheim',
    })),
  };
}

/** The answer to a test request: status, headers and the body parsed when it is JSON. */
export interface TestResponse {
  status: number;
  headers: Headers;
  // Tests read answers field by field; the registry's schemas are checked by the registry itself.
  body: any;
  text: string;
}

export interface TestRequestInit extends RequestInit {
  /** Sent as the JSON body. */
  json?: unknown;
  /** The client id of a test application to authenticate as (a fresh ZGW JWT); default the first application. `null`: no token. */
  as?: string | null;
}

export interface TestRegistry {
  readonly registry: Registry;
  /** The base URL of the served API, e.g. `http://127.0.0.1:40123/zaken/api/v1`. */
  readonly base: string;
  /** A request to a path under `base` (or a full URL), authenticated as a test application. */
  request(path: string, init?: TestRequestInit): Promise<TestResponse>;
  /** A ZGW JWT for one of the test applications. */
  token(clientId?: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestRegistryOptions extends Omit<RegistryOptions, 'authorization'> {
  /** The applications requests may authenticate as; default one, `test`, with all authorizations. */
  applications?: TestApplication[];
}

const TEST_SECRET = 'zaakregister-testing-secret-of-at-least-32-bytes';

/** Mints a ZGW JWT (HS256) for `clientId`, as ZGW clients do; `claims` adds or overrides claims. */
export const mintZgwJwt = (clientId: string, secret = TEST_SECRET, claims: Record<string, unknown> = {}) => signZgwJwt(clientId, secret, claims);

/**
 * A registry for a test: memory storage (PGlite), the test catalog, ZGW JWT authentication of the
 * test applications, the `standard` preset unless told otherwise, silent logs, on 127.0.0.1 at a
 * free port. Every `RegistryOptions` field can be given (plugins, preset, storage, catalog, ...).
 */
export async function startTestRegistry(options: TestRegistryOptions = {}): Promise<TestRegistry> {
  const { applications = [{ clientId: 'test', all: true }], ...registryOptions } = options;
  const registry = await createRegistry({
    storage: 'memory',
    catalog: staticCatalog(testCatalogData()),
    logger: consoleLogger('silent'),
    ...registryOptions,
    authorization: {
      clients: Object.fromEntries(applications.map((application) => [application.clientId, TEST_SECRET])),
      source: staticAuthorizations(applications.map(testApplicatie)),
    },
  });
  const server = await registry.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${new URL(registry.versions.at(-1)!.basePath, 'http://x').pathname}`;
  const token = (clientId = applications[0].clientId) => mintZgwJwt(clientId);
  return {
    registry,
    base,
    token,
    async request(path, { json, as, ...init } = {}) {
      const headers = new Headers(init.headers);
      if (json !== undefined) headers.set('content-type', 'application/json');
      if (as !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${await token(as)}`);
      const response = await fetch(path.startsWith('http') ? path : base + path, { ...init, headers, body: json !== undefined ? JSON.stringify(json) : init.body });
      return readResponse(response);
    },
    close: () => registry.close(),
  };
}

async function readResponse(response: Response): Promise<TestResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export interface TestIssuer {
  /** Its `iss` (`http://127.0.0.1:<port>`): put it in the `oauth` plugin's `issuers`. */
  readonly issuer: string;
  /**
   * A JWT access token (RFC 9068, PS256) for `audience` (the `oauth` plugin's), naming the client
   * (`client_id`) with `scopes`; `claims` adds or overrides claims (`sub`, `name`, `exp`, `cnf`, ...).
   */
  mint(token: { clientId: string; scopes: string[]; audience: string; claims?: Record<string, unknown> }): Promise<string>;
  close(): Promise<void>;
}

/**
 * An OAuth authorization server as the `oauth` plugin sees one: RFC 8414 metadata and a JWKS on a real
 * HTTP server on 127.0.0.1, and the key to mint access tokens with. No login, no token endpoint: a
 * plugin's tests get tokens directly (the oauth plugin's own tests run the whole flow).
 */
export async function testIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('PS256');
  const kid = randomUUID();
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'PS256', use: 'sig' }] };
  let issuer = '';
  const server = createServer((req, res) => {
    const documents: Record<string, unknown> = {
      '/.well-known/oauth-authorization-server': { issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token` },
      '/jwks': jwks,
    };
    const document = documents[req.url ?? ''];
    res.writeHead(document ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(document ?? {}));
  });
  const listening = await listenLocally(server);
  issuer = listening.origin;
  return {
    issuer,
    mint({ clientId, scopes, audience, claims = {} }) {
      const now = Math.floor(Date.now() / 1000);
      // `claims` last: a test may override any of them (another `aud`, an `exp` in the past).
      return new SignJWT({ iss: issuer, aud: audience, iat: now, exp: now + 300, client_id: clientId, scope: scopes.join(' '), ...claims })
        .setProtectedHeader({ alg: 'PS256', typ: 'at+jwt', kid })
        .sign(privateKey);
    },
    close: listening.close,
  };
}

/** `server` on a free port of 127.0.0.1: its origin, and a close that does not wait for idle keep-alive connections. */
async function listenLocally(server: Server): Promise<{ origin: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One request a fake remote registry received. */
export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body, parsed when it is JSON. */
  body?: unknown;
}

export interface FakeRemoteRegistry {
  /** `http://127.0.0.1:<port>`: add it to `remote.allowedHosts` (as `127.0.0.1:<port>`). */
  readonly origin: string;
  /** Everything received, in order. */
  readonly requests: ReceivedRequest[];
  /** Resolves once `count` requests (default 1 more than now) have arrived; rejects after `timeoutMs`. */
  received(count?: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/**
 * A stand-in for another registry (a Notificaties API, a Documenten API) on a real HTTP server:
 * records every request and answers with `respond` (default: 201 with the request's body). Deliveries
 * of the outbox arrive here exactly as they would at the real one.
 */
export async function fakeRemoteRegistry(
  respond: (request: ReceivedRequest) => { status: number; body?: unknown } = (request) => ({ status: 201, body: request.body ?? {} }),
): Promise<FakeRemoteRegistry> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text || undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: kept as text.
    }
    const request: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    requests.push(request);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
    const answer = respond(request);
    res.writeHead(answer.status, answer.body === undefined ? {} : { 'content-type': 'application/json' });
    res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  const listening = await listenLocally(server);
  return {
    origin: listening.origin,
    requests,
    received(count = requests.length + 1, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the fake registry received ${requests.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests)) });
      });
    },
    close: listening.close,
  };
}

/** What a problem answer must hold: its status, and optionally its `code` and `invalidParams` (name and code, in any order). */
export interface ExpectedProblem {
  status: number;
  code?: string;
  invalidParams?: { name: string; code: string }[];
}

/** Asserts an `application/problem+json` answer with this status (and code, invalid params); returns its body. */
export function assertProblem(response: TestResponse, expected: ExpectedProblem): Record<string, unknown> {
  assert.equal(response.status, expected.status, `expected a ${expected.status} problem, got ${response.status}: ${response.text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/, 'a problem answer is application/problem+json');
  assert.equal(response.body.status, expected.status, 'the body repeats the status');
  assert.equal(typeof response.body.title, 'string');
  if (expected.code !== undefined) assert.equal(response.body.code, expected.code);
  if (expected.invalidParams) {
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    const actual = ((response.body.invalidParams ?? []) as { name: string; code: string }[]).map(({ name, code }) => ({ name, code }));
    assert.deepEqual(actual.sort(byName), [...expected.invalidParams].sort(byName));
  }
  return response.body;
}
