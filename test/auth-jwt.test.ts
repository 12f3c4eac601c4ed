import assert from 'node:assert/strict';
import { decodeProtectedHeader } from 'jose';
import { authenticationPlugins, signZgwJwt, staticAuthorizations, type Applicatie, type AuthOptions } from '../src/auth/index.js';
import { pgliteStorage, type Plugin } from '../src/index.js';
import { startRegistry, ZAAKTYPE, type TestServer } from './helpers/registry.js';
import { whoAmI } from './helpers/zgw-servers.js';

const SECRET = 'een-lang-geheim-van-de-zaakafhandelcomponent';
const now = () => Math.floor(Date.now() / 1000);

const APPLICATIONS: Applicatie[] = [
  {
    clientIds: ['zac'],
    label: 'Zaakafhandelcomponent',
    heeftAlleAutorisaties: false,
    autorisaties: [
      { component: 'zrc', zaaktype: ZAAKTYPE, scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding: 'openbaar' },
      { component: 'drc', zaaktype: ZAAKTYPE, scopes: ['documenten.lezen'], maxVertrouwelijkheidaanduiding: 'geheim' },
    ],
  },
  { clientIds: ['beheer'], label: 'Beheer', heeftAlleAutorisaties: true, autorisaties: [] },
];

/** Another authenticator, as an OAuth plugin would be: it takes Basic and RS256 Bearer tokens. */
function otherAuthenticator(): Plugin {
  return {
    name: 'ander',
    authenticate(ctx) {
      const header = ctx.req.headers.authorization ?? '';
      const rs256 = header.startsWith('Bearer ') && decodeProtectedHeader(header.slice(7)).alg === 'RS256';
      if (!header.startsWith('Basic ') && !rs256) return undefined;
      return { clientId: 'ander', allAuthorizations: false, authorizations: [], method: 'ander' };
    },
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A registry on PGlite whose only way in is the given ZGW JWT options (plus `whoAmI` and any extra plugins). */
async function registryWith(options: Omit<AuthOptions, 'source'>, extra: Plugin[] = []): Promise<TestServer> {
  return startRegistry(await pgliteStorage({ dataDir: 'memory' }), {
    authorization: undefined,
    plugins: [...authenticationPlugins({ ...options, source: staticAuthorizations(APPLICATIONS) }), ...extra, whoAmI()],
  });
}

describe('ZGW JWT authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await registryWith({ clients: { zac: SECRET, beheer: 'geheim-van-beheer-van-minstens-32-bytes', zonderapplicatie: 'geheim-zonder-applicatie-van-minstens-32-bytes' } }, [
      otherAuthenticator(),
    ]);
  });
  after(() => server.close());

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const whoAmIWith = async (token: string) => server.request('/wie-ben-ik', bearer(token));
  const refusedWith = async (token: string, code: string) => {
    const response = await whoAmIWith(token);
    assert.equal(response.status, 401, response.text);
    assert.equal(response.body.code, code);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  };

  it('answers a request without credentials with 401 not_authenticated and a Bearer challenge', async () => {
    for (const path of ['/zaken', '/wie-ben-ik']) {
      const response = await server.request(path);
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'not_authenticated');
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    }
  });

  it('accepts the token ZGW clients send (iss, iat, client_id, no exp) and builds the principal from the application', async () => {
    const response = await whoAmIWith(await signZgwJwt('zac', SECRET));
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      clientId: 'zac',
      applicationLabel: 'Zaakafhandelcomponent',
      allAuthorizations: false,
      authorizations: [{ zaaktype: ZAAKTYPE, scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding: 'openbaar' }],
      method: 'zgw-jwt',
    });
  });

  it('passes user_id and user_representation to the principal', async () => {
    const token = await signZgwJwt('zac', SECRET, { user_id: 'mdewit', user_representation: 'Marieke de Wit' });
    const { body } = await whoAmIWith(token);
    assert.equal(body.userId, 'mdewit');
    assert.equal(body.userRepresentation, 'Marieke de Wit');
  });

  it('reads the scheme case-insensitively', async () => {
    const response = await server.request('/wie-ben-ik', { headers: { authorization: `bearer ${await signZgwJwt('zac', SECRET)}` } });
    assert.equal(response.status, 200, response.text);
  });

  it('authorizes end to end: all authorizations see /zaken, a client without application is refused', async () => {
    assert.equal((await server.request('/zaken', bearer(await signZgwJwt('beheer', 'geheim-van-beheer-van-minstens-32-bytes')))).status, 200);
    const none = await server.request('/zaken', bearer(await signZgwJwt('zonderapplicatie', 'geheim-zonder-applicatie-van-minstens-32-bytes')));
    assert.equal(none.status, 403, none.text);
    const { body } = await whoAmIWith(await signZgwJwt('zonderapplicatie', 'geheim-zonder-applicatie-van-minstens-32-bytes'));
    assert.deepEqual([body.allAuthorizations, body.authorizations, body.applicationLabel], [false, [], undefined]);
  });

  it('leaves other schemes and other algorithms to the next authenticator', async () => {
    const basic = await server.request('/wie-ben-ik', { headers: { authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' } });
    assert.equal(basic.body.method, 'ander');
    const rs256 = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ sub: 'iemand' })}.c2lnbmF0dXVy`;
    assert.equal((await whoAmIWith(rs256)).body.method, 'ander');
    const digest = await server.request('/wie-ben-ik', { headers: { authorization: 'Digest username="x"' } });
    assert.equal(digest.status, 401);
    assert.equal(digest.body.code, 'not_authenticated');
  });

  it('refuses tokens that cannot be decoded', async () => {
    await refusedWith('dit-is-geen-jwt', 'jwt-decode-error');
    await refusedWith(`${b64({ alg: 'HS256' })}.bm9nIHN0ZWVkcyBnZWVuIGpzb24.c2ln`, 'jwt-decode-error');
    const empty = await server.request('/wie-ben-ik', { headers: { authorization: 'Bearer' } });
    assert.equal(empty.body.code, 'jwt-decode-error');
  });

  it('refuses a wrong signature, a missing client_id and an unknown client', async () => {
    await refusedWith(await signZgwJwt('zac', 'een ander geheim'), 'invalid-jwt-signature');
    await refusedWith(await signZgwJwt('zac', SECRET, { client_id: undefined }), 'missing-client-identifier');
    await refusedWith(await signZgwJwt('onbekend', SECRET), 'invalid-client-identifier');
    // Only own keys of the clients object count.
    await refusedWith(await signZgwJwt('constructor', SECRET), 'invalid-client-identifier');
  });

  it('accepts iat up to the leeway in the future and refuses it beyond', async () => {
    assert.equal((await whoAmIWith(await signZgwJwt('zac', SECRET, { iat: now() + 240 }))).status, 200);
    await refusedWith(await signZgwJwt('zac', SECRET, { iat: now() + 400 }), 'jwt-not-yet-valid');
  });

  it('accepts a token for max age (plus leeway) after iat, and requires iat', async () => {
    assert.equal((await whoAmIWith(await signZgwJwt('zac', SECRET, { iat: now() - 3000 }))).status, 200);
    await refusedWith(await signZgwJwt('zac', SECRET, { iat: now() - 3600 - 300 - 60 }), 'jwt-expired');
    await refusedWith(await signZgwJwt('zac', SECRET, { iat: undefined }), 'jwt-missing-iat-claim');
  });

  it('honours exp (with the leeway) when a token has one', async () => {
    assert.equal((await whoAmIWith(await signZgwJwt('zac', SECRET, { exp: now() - 60 }))).status, 200);
    await refusedWith(await signZgwJwt('zac', SECRET, { exp: now() - 400 }), 'jwt-expired');
  });

  it('never accepts a token in the query string', async () => {
    const token = await signZgwJwt('zac', SECRET);
    for (const name of ['access_token', 'token', 'jwt']) {
      const response = await server.request(`/wie-ben-ik?${name}=${token}`);
      assert.equal(response.status, 401);
      assert.equal(response.body.code, 'not_authenticated');
      assert.match(response.body.detail, /Authorization header/);
    }
    // Beside a valid header too: the token has been in a URL, which logs and histories keep.
    const withHeader = await server.request(`/zaken?access_token=${token}`, bearer(token));
    assert.equal(withHeader.status, 401);
    assert.equal(withHeader.body.code, 'not_authenticated');
    assert.equal(withHeader.headers.get('www-authenticate'), 'Bearer error="invalid_request"');
  });
});

describe('ZGW JWT options', () => {
  let server: TestServer;
  before(async () => {
    server = await registryWith({ clients: (clientId) => (clientId === 'zac' ? SECRET : undefined), leewaySeconds: 0, maxAgeSeconds: 60 });
  });
  after(() => server.close());

  const statusOf = async (token: string) => (await server.request('/wie-ben-ik', { headers: { authorization: `Bearer ${token}` } })).status;

  it('looks secrets up with a function and applies the configured leeway and max age', async () => {
    assert.equal(await statusOf(await signZgwJwt('zac', SECRET)), 200);
    assert.equal(await statusOf(await signZgwJwt('beheer', 'geheim-van-beheer-van-minstens-32-bytes')), 401);
    assert.equal(await statusOf(await signZgwJwt('zac', SECRET, { iat: now() - 120 })), 401);
    assert.equal(await statusOf(await signZgwJwt('zac', SECRET, { iat: now() + 30 })), 401);
  });

  it('checks a known token again when its client got another secret, and its times on every request', async () => {
    let secret = SECRET;
    const rotating = await registryWith({ clients: (clientId) => (clientId === 'zac' ? secret : undefined), leewaySeconds: 0, maxAgeSeconds: 2 });
    try {
      const token = await signZgwJwt('zac', SECRET);
      const status = async () => (await rotating.request('/wie-ben-ik', { headers: { authorization: `Bearer ${token}` } })).status;
      assert.equal(await status(), 200);
      assert.equal(await status(), 200, 'the remembered token');
      secret = 'een-ander-lang-geheim-van-de-zaakafhandelcomponent';
      assert.equal(await status(), 401, 'signed with the secret the client no longer has');
      secret = SECRET;
      assert.equal(await status(), 200);
      await new Promise((resolve) => setTimeout(resolve, 3100));
      assert.equal(await status(), 401, 'older than the maximum age, remembered or not');
    } finally {
      await rotating.close();
    }
  });
});

describe('staticAuthorizations', () => {
  it('finds the application of a client id', async () => {
    const source = staticAuthorizations(APPLICATIONS);
    assert.equal((await source.applicationFor('beheer'))?.label, 'Beheer');
    assert.equal(await source.applicationFor('onbekend'), undefined);
  });

  it('refuses a client id in two applications and a zrc authorization without zaaktype', () => {
    assert.throws(() => staticAuthorizations([...APPLICATIONS, { ...APPLICATIONS[1], label: 'Tweede', clientIds: ['zac'] }]), /\/applications\/2\/clientIds: client id "zac" is also in application "Zaakafhandelcomponent"/);
    const zonderZaaktype = [{ clientIds: ['x'], label: 'X', heeftAlleAutorisaties: false, autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'] }] }];
    assert.throws(() => staticAuthorizations(zonderZaaktype as unknown as Applicatie[]), /\/applications\/0\/autorisaties\/0: a zrc autorisatie needs zaaktype and maxVertrouwelijkheidaanduiding/);
    assert.throws(() => staticAuthorizations([{ label: 'Geen client ids' }] as unknown as Applicatie[]), /\/applications\/0\/clientIds: is required/);
  });
});
