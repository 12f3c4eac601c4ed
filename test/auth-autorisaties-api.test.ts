import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { authenticationPlugins, autorisatiesApi, signZgwJwt, type Applicatie, type AutorisatiesApiOptions } from '../src/auth/index.js';
import { consoleLogger, createRegistry, pgliteStorage, ProblemError, remoteClient, type Registry } from '../src/index.js';
import { testCatalog, ZAAKTYPE, ZAAKTYPE_GEHEIM } from './helpers/registry.js';
import {
  registryServer,
  startAutorisatiesApi,
  startNotificatiesApi,
  whoAmI,
  type AutorisatiesApiServer,
  type NotificatiesApiServer,
} from './helpers/zgw-servers.js';

const SECRET = 'geheim-van-de-zaakafhandelcomponent';
const NRC_AUTH = 'Bearer token-dat-de-notificaties-api-meestuurt';
const host = (url: string) => new URL(url).host;

const zac = (): Applicatie => ({
  clientIds: ['zac'],
  label: 'Zaakafhandelcomponent',
  heeftAlleAutorisaties: false,
  autorisaties: [{ component: 'zrc', zaaktype: ZAAKTYPE, scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding: 'openbaar' }],
});

/** Resolves once `condition` holds; polls, so no test depends on how fast the background work is. */
async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('autorisatiesApi source', () => {
  let ac: AutorisatiesApiServer;
  beforeEach(async () => {
    ac = await startAutorisatiesApi([zac()]);
  });
  afterEach(() => ac.close());

  const source = (options: Partial<AutorisatiesApiOptions> = {}) =>
    autorisatiesApi({
      url: ac.url,
      remote: remoteClient({ allowedHosts: [host(ac.url)], credentials: { [host(ac.url)]: { clientId: 'zaakregister', secret: 'geheim-bij-ac' } } }),
      ...options,
    });
  const lookups = () => ac.requests.filter((r) => r.path.startsWith('/autorisaties/api/v1/applicaties')).length;

  it('asks GET /applicaties?clientIds=… with a ZGW JWT and caches the answer for the TTL', async () => {
    const applications = source();
    assert.equal((await applications.applicationFor('zac'))?.label, 'Zaakafhandelcomponent');
    assert.equal((await applications.applicationFor('zac'))?.label, 'Zaakafhandelcomponent');
    assert.equal(lookups(), 1);
    assert.equal(ac.requests[0].path, '/autorisaties/api/v1/applicaties?clientIds=zac');
    assert.equal(decodeJwt(ac.requests[0].authorization!.replace('Bearer ', '')).client_id, 'zaakregister');
  });

  it('follows the pages of the answer (next) to find the application', async () => {
    // An Autorisaties API that lists more than the asked client id, one per page.
    ac.applications.unshift({ ...zac(), clientIds: ['ander'], label: 'Eerst' }, { ...zac(), clientIds: ['derde'], label: 'Tweede' });
    ac.filters = false;
    ac.pageSize = 1;
    assert.equal((await source().applicationFor('zac'))?.label, 'Zaakafhandelcomponent');
    assert.equal(lookups(), 3);
    assert.equal(await source().applicationFor('onbekend'), undefined);
  });

  it('shares one request between concurrent lookups and remembers that a client has no application', async () => {
    const applications = source();
    const answers = await Promise.all([1, 2, 3].map(() => applications.applicationFor('zac')));
    assert.deepEqual(answers.map((a) => a?.label), ['Zaakafhandelcomponent', 'Zaakafhandelcomponent', 'Zaakafhandelcomponent']);
    assert.equal(await applications.applicationFor('onbekend'), undefined);
    assert.equal(await applications.applicationFor('onbekend'), undefined);
    assert.equal(lookups(), 2);
  });

  it('asks on every lookup with ttlSeconds 0, and forgets on invalidate', async () => {
    const uncached = source({ ttlSeconds: 0 });
    await uncached.applicationFor('zac');
    await uncached.applicationFor('zac');
    assert.equal(lookups(), 2);
    const cached = source();
    await cached.applicationFor('zac');
    ac.applications[0].heeftAlleAutorisaties = true;
    assert.equal((await cached.applicationFor('zac'))?.heeftAlleAutorisaties, false);
    cached.invalidate('zac');
    assert.equal((await cached.applicationFor('zac'))?.heeftAlleAutorisaties, true);
  });

  it('fails with 503 authorizations-unavailable when the API is down and nothing is known; uses the last answer otherwise', async () => {
    const applications = source({ ttlSeconds: 0 });
    await applications.applicationFor('zac');
    ac.failWith = 500;
    assert.equal((await applications.applicationFor('zac'))?.label, 'Zaakafhandelcomponent');
    await assert.rejects(applications.applicationFor('ander'), (error: ProblemError) => error.code === 'authorizations-unavailable' && error.status === 503);
    // After an invalidation the last answer is gone too: a revoked authorization never comes back.
    applications.invalidate();
    await assert.rejects(applications.applicationFor('zac'), (error: ProblemError) => error.status === 503);
  });

  it('refuses an Autorisaties API the remote client may not reach, and answers of the wrong shape', async () => {
    assert.throws(() => autorisatiesApi({ url: ac.url, remote: remoteClient({ allowedHosts: [] }) }), /not an allowed/);
    ac.applications = [{ clientIds: ['zac'], label: 'Kapot' } as Applicatie];
    await assert.rejects(source().applicationFor('zac'), (error: ProblemError) => error.code === 'authorizations-unavailable');
  });
});

describe('autorisatiesApi source and the shapes real Autorisaties APIs answer', () => {
  let ac: AutorisatiesApiServer;
  afterEach(() => ac.close());

  /** An applicatie as Open Zaak's AC answers (blank strings for fields that do not apply) or OneGround's (nulls). */
  const realWorld = (blank: '' | null) =>
    ({
      url: 'https://ac.example.nl/autorisaties/api/v1/applicaties/1',
      clientIds: ['zac'],
      label: 'Zaakafhandelcomponent',
      heeftAlleAutorisaties: false,
      autorisaties: [
        { component: 'ztc', componentWeergave: 'Catalogi API', scopes: ['catalogi.lezen'], zaaktype: blank, informatieobjecttype: blank, besluittype: blank, maxVertrouwelijkheidaanduiding: blank },
        { component: 'drc', scopes: ['documenten.lezen'], zaaktype: blank, informatieobjecttype: 'https://ztc.example.nl/informatieobjecttypen/1', besluittype: blank, maxVertrouwelijkheidaanduiding: 'openbaar' },
        { component: 'zrc', scopes: ['zaken.lezen'], zaaktype: ZAAKTYPE, informatieobjecttype: blank, besluittype: blank, maxVertrouwelijkheidaanduiding: 'openbaar' },
        // An odd zrc autorisatie (no zaaktype): skipped, the rest of the application stands.
        { component: 'zrc', scopes: ['zaken.bijwerken'], zaaktype: blank, informatieobjecttype: blank, besluittype: blank, maxVertrouwelijkheidaanduiding: blank },
      ],
    }) as unknown as Applicatie;

  for (const [implementation, blank] of [['blank strings (Open Zaak)', ''], ['nulls (OneGround)', null]] as const) {
    it(`uses the zrc autorisaties of an applicatie with ${implementation}, ignores other components, skips an odd one`, async () => {
      ac = await startAutorisatiesApi([realWorld(blank)]);
      const source = autorisatiesApi({ url: ac.url, remote: remoteClient({ allowedHosts: [host(ac.url)] }) });
      const application = await source.applicationFor('zac');
      assert.deepEqual(
        application?.autorisaties.map(({ component, scopes, zaaktype, maxVertrouwelijkheidaanduiding }) => ({ component, scopes, zaaktype, maxVertrouwelijkheidaanduiding })),
        [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'openbaar' }],
      );
    });
  }

  it('through the registry: a client whose applicatie has blank fields reads its zaken (no 503)', async () => {
    ac = await startAutorisatiesApi([realWorld('')]);
    const logged: string[] = [];
    const registry = await createRegistry({
      storage: await pgliteStorage({ dataDir: 'memory' }),
      catalog: testCatalog(),
      remote: { allowedHosts: [host(ac.url)] },
      logger: { ...consoleLogger('silent'), warn: (message: string) => logged.push(message) },
      authorization: { clients: { zac: SECRET }, source: autorisatiesApi({ url: ac.url, remote: remoteClient({ allowedHosts: [host(ac.url)] }) }) },
    });
    const server = await registryServer();
    server.mount(registry.router);
    try {
      const response = await fetch(`${server.base}/zaken`, { headers: { authorization: `Bearer ${await signZgwJwt('zac', SECRET)}` } });
      assert.equal(response.status, 200, await response.clone().text());
      assert.ok(logged.some((line) => /skipped an autorisatie/.test(line)), logged.join('\n'));
    } finally {
      await server.close();
      await registry.close();
    }
  });
});

describe('Autorisaties API through the registry, with notifications', () => {
  let ac: AutorisatiesApiServer;
  let nrc: NotificatiesApiServer;
  let server: Awaited<ReturnType<typeof registryServer>>;
  let registry: Registry;

  /** A registry whose applications come from `ac`, subscribed at `nrc` with `server`'s webhook URL. */
  async function assemble(): Promise<Registry> {
    const remote = remoteClient({ allowedHosts: [host(ac.url), host(nrc.url)] });
    const source = autorisatiesApi({
      url: ac.url,
      remote,
      notifications: { url: nrc.url, callbackUrl: `${server.base}/notificaties/autorisaties`, auth: NRC_AUTH, subscribe: true, retrySeconds: 0.02 },
    });
    const assembled = await createRegistry({
      storage: await pgliteStorage({ dataDir: 'memory' }),
      catalog: testCatalog(),
      logger: consoleLogger('silent'),
      plugins: [...authenticationPlugins({ clients: { zac: SECRET }, source }), whoAmI()],
    });
    server.mount(assembled.router);
    return assembled;
  }

  before(async () => {
    ac = await startAutorisatiesApi([zac()]);
    nrc = await startNotificatiesApi();
    nrc.down = true;
    server = await registryServer();
    registry = await assemble();
  });
  after(async () => {
    await registry.close();
    await Promise.all([server.close(), ac.close(), nrc.close()]);
  });

  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(server.base + path, init);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const whoAmIAs = async () => (await call('/wie-ben-ik', { headers: { authorization: `Bearer ${await signZgwJwt('zac', SECRET)}` } })).body;
  const notify = (auth: string | undefined, body: Record<string, unknown>) =>
    call('/notificaties/autorisaties', { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) });
  const notification = () => ({ kanaal: 'autorisaties', hoofdObject: `${ac.url}/applicaties/0`, resource: 'applicatie', resourceUrl: `${ac.url}/applicaties/0`, actie: 'update', aanmaakdatum: '2026-01-01T12:00:00Z', kenmerken: {} });

  it('subscribes to kanaal autorisaties in the background, retrying while the Notificaties API is down', async () => {
    await waitFor(() => nrc.requests.length >= 2, 'two attempts while the Notificaties API is down');
    assert.equal(nrc.abonnementen.length, 0);
    nrc.down = false;
    await waitFor(() => nrc.abonnementen.length === 1, 'the abonnement');
    const [abonnement] = nrc.abonnementen;
    assert.equal(abonnement.callbackUrl, `${server.base}/notificaties/autorisaties`);
    assert.equal(abonnement.auth, NRC_AUTH);
    assert.deepEqual(abonnement.kanalen, [{ naam: 'autorisaties', filters: {} }]);
  });

  it('makes a changed authorization take effect on the next request after the notification', async () => {
    assert.deepEqual((await whoAmIAs()).authorizations.map((a: { zaaktype: string }) => a.zaaktype), [ZAAKTYPE]);
    ac.applications[0].autorisaties.push({ component: 'zrc', zaaktype: ZAAKTYPE_GEHEIM, scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding: 'geheim' });
    assert.equal((await whoAmIAs()).authorizations.length, 1, 'cached until notified');
    assert.deepEqual(await nrc.notify('autorisaties', { resource: 'applicatie', actie: 'partial_update' }), [204]);
    assert.deepEqual((await whoAmIAs()).authorizations.map((a: { zaaktype: string }) => a.zaaktype), [ZAAKTYPE, ZAAKTYPE_GEHEIM]);
  });

  it('refuses a notification without the agreed Authorization header with 403, before reading it', async () => {
    for (const auth of [undefined, 'Bearer iets-anders']) {
      const response = await notify(auth, { niet: 'eens een notificatie' });
      assert.equal(response.status, 403);
      assert.equal(response.body.code, 'permission_denied');
    }
    const invalid = await notify(NRC_AUTH, { kanaal: 'autorisaties' });
    assert.equal(invalid.status, 400);
    assert.equal((await notify(NRC_AUTH, { ...notification(), kanaal: 'zaken' })).status, 204);
  });

  it('answers 503 when the Autorisaties API is down and nothing is cached', async () => {
    ac.failWith = 503;
    try {
      assert.equal((await notify(NRC_AUTH, notification())).status, 204);
      const response = await call('/zaken', { headers: { authorization: `Bearer ${await signZgwJwt('zac', SECRET)}` } });
      assert.equal(response.status, 503);
      assert.equal(response.body.code, 'authorizations-unavailable');
    } finally {
      ac.failWith = undefined;
    }
  });

  it('updates its own abonnement on a restart instead of adding one', async () => {
    await registry.close();
    const posts = nrc.requests.filter((r) => r.method === 'POST').length;
    registry = await assemble();
    await waitFor(() => nrc.requests.some((r) => r.method === 'PUT'), 'the update of the abonnement');
    assert.equal(nrc.abonnementen.length, 1);
    assert.equal(nrc.requests.filter((r) => r.method === 'POST').length, posts);
  });
});
