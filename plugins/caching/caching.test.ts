import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { invalidParam, type Plugin } from '../../src/index.js';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { statementsDuring } from '../../test/helpers/statements.js';
import { TYPES, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { createZaakFamily, type ZaakFamily } from '../../test/helpers/zaak-family.js';
import { caching, etagOf, parseIfNoneMatch } from './index.js';

describe('caching: If-None-Match parsing', () => {
  it('reads one tag, quoted lists, weak forms and *', () => {
    assert.deepEqual([...parseIfNoneMatch('"abc"').tags], ['"abc"']);
    assert.deepEqual([...parseIfNoneMatch('"a", W/"b",  "c,d"').tags], ['"a"', '"b"', '"c,d"']);
    assert.equal(parseIfNoneMatch(' * ').any, true);
    assert.equal(parseIfNoneMatch('abc').tags.size, 0, 'an unquoted value is no entity tag');
  });
});

/** A rol whose toelichting is `weiger` is refused inside the write transaction, after caching raised its counter. */
const refuseInTransaction: Plugin = {
  name: 'refuse-in-transaction',
  resourceChanged(change) {
    if (change.after?.roltoelichting === 'weiger') throw invalidParam('roltoelichting', 'invalid', 'Geweigerd na het schrijven.');
  },
};

for (const backend of BACKENDS) {
  describe(`caching plugin on ${backend.name}`, () => {
    let api: TestServer;
    let family: ZaakFamily;
    const apps = testApps();
    const get = async (url: string, headers: Record<string, string> = {}, method = 'GET') =>
      api.request(url, { method, headers: { ...(await apps.headers('alles')), ...headers } });
    const post = async (path: string, json: unknown) => api.request(path, { method: 'POST', json, headers: await apps.headers('alles') });
    /** The SQL the registry sends while `work` runs. */
    const queriesDuring = (work: () => Promise<unknown>) => statementsDuring(api.registry.services.storage.knex, work);
    const detailUrls = () => [
      family.zaak.url,
      family.status.url,
      family.resultaat.url,
      family.rol.url,
      family.zaakobject.url,
      family.zaakinformatieobject.url,
      family.zaakeigenschap.url,
      family.klantcontact.url,
      family.zaakcontactmoment.url,
      family.zaakverzoek.url,
      family.besluit.url,
    ];

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [caching(), refuseInTransaction], authorization: apps.authorization });
    });
    after(async () => api?.close());
    beforeEach(async () => {
      family = await createZaakFamily({ ...api, request: async (path, init = {}) => api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers('alles')) } }) });
    });

    it('puts a strong ETag over the exact body on every detail endpoint; HEAD gives the same headers and no body', async () => {
      const audit = (await get(`/zaken/${family.zaak.uuid}/audittrail`)).body[0];
      for (const url of [...detailUrls(), `${api.base}/zaken/${family.zaak.uuid}/audittrail/${audit.uuid}`]) {
        const response = await get(url);
        assert.equal(response.status, 200, url);
        const etag = response.headers.get('etag');
        assert.equal(etag, etagOf(response.text), `${url}: the tag is computed over what the client receives`);
        assert.match(etag!, /^"[0-9a-f]{32}"$/, 'strong, quoted');
        assert.equal((await get(url)).headers.get('etag'), etag, `${url}: the same representation, the same tag`);

        const head = await get(url, {}, 'HEAD');
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        for (const name of ['etag', 'content-type', 'content-length', 'api-version']) assert.equal(head.headers.get(name), response.headers.get(name), `${url} HEAD ${name}`);

        const notModified = await get(url, { 'if-none-match': etag! });
        assert.equal(notModified.status, 304, url);
        assert.equal(notModified.text, '');
        assert.equal(notModified.headers.get('etag'), etag);
        assert.equal((await get(url, { 'if-none-match': etag! }, 'HEAD')).status, 304, `${url} HEAD`);
      }
    });

    it('answers 304 when any tag of a list matches (quoted lists, W/ and *), 200 otherwise', async () => {
      const url = family.zaak.url;
      const etag = (await get(url)).headers.get('etag')!;
      for (const header of [`"0000", ${etag}`, `${etag},"ffff"`, `W/${etag}`, '*']) {
        const response = await get(url, { 'if-none-match': header });
        assert.equal(response.status, 304, header);
        assert.equal(response.headers.get('etag'), etag, header);
      }
      for (const header of ['"0000"', '"0000", W/"1111"', etag.slice(1, -1)]) {
        const response = await get(url, { 'if-none-match': header });
        assert.equal(response.status, 200, header);
        assert.equal(response.headers.get('etag'), etag);
        assert.equal(response.body.url, url);
      }
    });

    it('gives another representation another tag: a new status, another base URL', async () => {
      const before = (await get(family.zaak.url)).headers.get('etag')!;
      const statusBefore = (await get(family.status.url)).headers.get('etag')!;
      const second = await post('/statussen', { zaak: family.zaak.url, statustype: TYPES.statustypeEind, datumStatusGezet: '2024-03-02T10:00:00Z' });
      assert.equal(second.status, 201);

      const after = await get(family.zaak.url, { 'if-none-match': before });
      assert.equal(after.status, 200, 'the zaak changed with its new status');
      assert.notEqual(after.headers.get('etag'), before);
      assert.equal(after.body.status, second.body.url);
      // The first status is no longer the latest: its own representation changed too.
      const status = await get(family.status.url, { 'if-none-match': statusBefore });
      assert.equal(status.status, 200);
      assert.equal(status.body.indicatieLaatstGezetteStatus, false);

      // The same zaak rendered for another host: other URLs in the body, another tag.
      const path = new URL(family.zaak.url).pathname;
      const other = await new Promise<{ etag: string; body: any }>((resolve, reject) => {
        const port = new URL(api.base).port;
        apps.headers('alles').then((auth) => {
          const req = httpRequest({ host: '127.0.0.1', port, path, headers: { ...auth, host: 'zaken.example.nl' } }, (res) => {
            let text = '';
            res.on('data', (chunk) => (text += chunk));
            res.on('end', () => resolve({ etag: String(res.headers.etag), body: JSON.parse(text) }));
          });
          req.on('error', reject);
          req.end();
        }, reject);
      });
      assert.equal(other.body.url, `http://zaken.example.nl${path}`);
      assert.notEqual(other.etag, after.headers.get('etag'));
    });

    it('answers a repeated conditional GET from the remembered tag: the zaak\'s load and nothing else, no rendering', async () => {
      const url = family.zaak.url;
      const etag = (await get(url)).headers.get('etag')!;
      const full = await queriesDuring(() => get(url));
      assert.equal((await get(url, { 'if-none-match': etag })).status, 304, 'remembers the tag');
      let answer: Awaited<ReturnType<typeof get>> | undefined;
      const conditional = await queriesDuring(async () => (answer = await get(url, { 'if-none-match': etag })));
      assert.equal(answer!.status, 304);
      // Only the statement that loads the zaak for authorization, with its revision: no query of its own.
      assert.equal(conditional.length, 1, conditional.join('\n'));
      assert.match(conditional[0], /"zaak_revision"\."revision"[^]* from "zaak"/);
      assert.ok(conditional.length <= full.length, `a 304 runs ${conditional.length} queries, a 200 ${full.length}`);
    });

    it('a change to a child invalidates the remembered zaak tag in its transaction; a rolled-back one does not', async () => {
      const url = family.zaak.url;
      const etag = (await get(url)).headers.get('etag')!;
      assert.equal((await get(url, { 'if-none-match': etag })).status, 304);

      const refused = await post('/rollen', { ...rolInput(family), roltoelichting: 'weiger' });
      assert.equal(refused.status, 400, refused.text);
      assert.equal((await get(url, { 'if-none-match': etag })).status, 304, 'nothing changed: still current');

      const rol = await post('/rollen', rolInput(family));
      assert.equal(rol.status, 201);
      const changed = await get(url, { 'if-none-match': etag });
      assert.equal(changed.status, 200, 'a new rol is a new representation');
      assert.ok(changed.body.rollen.includes(rol.body.url));

      // A deelzaak changes its hoofdzaak's `deelzaken`.
      const hoofdzaakTag = changed.headers.get('etag')!;
      assert.equal((await get(url, { 'if-none-match': hoofdzaakTag })).status, 304);
      const deelzaak = await post('/zaken', zaakInput({ hoofdzaak: url }));
      assert.equal(deelzaak.status, 201);
      const withDeelzaak = await get(url, { 'if-none-match': hoofdzaakTag });
      assert.equal(withDeelzaak.status, 200);
      assert.deepEqual(withDeelzaak.body.deelzaken, [deelzaak.body.url]);

      // Destroying the deelzaak changes the hoofdzaak again.
      const tag = withDeelzaak.headers.get('etag')!;
      assert.equal((await get(url, { 'if-none-match': tag })).status, 304);
      assert.equal((await api.request(deelzaak.body.url, { method: 'DELETE', headers: await apps.headers('alles') })).status, 204);
      const without = await get(url, { 'if-none-match': tag });
      assert.equal(without.status, 200);
      assert.deepEqual(without.body.deelzaken, []);
    });

    it('a record moved to another zaak is a new representation', async () => {
      const url = family.zaakobject.url;
      const etag = (await get(url)).headers.get('etag')!;
      assert.equal((await get(url, { 'if-none-match': etag })).status, 304);
      const other = (await post('/zaken', zaakInput())).body;
      const moved = await api.request(url, { method: 'PATCH', json: { zaak: other.url }, headers: await apps.headers('alles') });
      assert.equal(moved.status, 200, moved.text);
      const after = await get(url, { 'if-none-match': etag });
      assert.equal(after.status, 200);
      assert.equal(after.body.zaak, other.url);
    });

    it('tags a zaaknotitie too: 304 while it is unchanged, 200 with a new tag once it changed', async () => {
      const note = await post('/zaaknotities', { gerelateerdAan: family.zaak.url, onderwerp: 'Telefoon', tekst: 'Burger belde.' });
      assert.equal(note.status, 201, note.text);
      const first = await get(note.body.url);
      const etag = first.headers.get('etag')!;
      assert.equal(etag, etagOf(first.text));
      assert.equal((await get(note.body.url, { 'if-none-match': etag })).status, 304);
      const patched = await api.request(note.body.url, { method: 'PATCH', json: { tekst: 'Burger belde terug.' }, headers: await apps.headers('alles') });
      assert.equal(patched.status, 200, patched.text);
      const after = await get(note.body.url, { 'if-none-match': etag });
      assert.equal(after.status, 200, 'the remembered tag is no longer current');
      assert.equal(after.body.tekst, 'Burger belde terug.');
      assert.notEqual(after.headers.get('etag'), etag);
    });

    it('never answers 304 to a client that may not read the zaak', async () => {
      const geheim = (await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }))).body;
      const etag = (await get(geheim.url)).headers.get('etag')!;
      assert.equal((await get(geheim.url, { 'if-none-match': etag })).status, 304);
      const refused = await api.request(geheim.url, { headers: { ...(await apps.headers('beperkt')), 'if-none-match': etag } });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('etag'), null);
    });

    it('puts no ETag on lists, and none on errors; HEAD works on lists too', async () => {
      const list = await get('/zaken');
      assert.equal(list.headers.get('etag'), null);
      const head = await get('/zaken', {}, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('content-length'), list.headers.get('content-length'));
      assert.equal((await get(`/zaken/${crypto.randomUUID()}`)).headers.get('etag'), null);
    });

    it('lets a client keep a detail read only to revalidate it (private, no-cache on 200, HEAD and both kinds of 304); lists, writes and errors are not kept', async () => {
      const url = family.zaak.url;
      const read = await get(url);
      assert.ok(read.headers.get('etag'));
      assert.equal(read.headers.get('cache-control'), 'private, no-cache', 'authenticated: no shared cache keeps it; a private one revalidates first');
      assert.equal((await get(url, {}, 'HEAD')).headers.get('cache-control'), 'private, no-cache');
      // The first conditional GET is answered after rendering, the second from the remembered tag.
      for (const attempt of ['rendered', 'remembered']) {
        const notModified = await get(url, { 'if-none-match': read.headers.get('etag')! });
        assert.equal(notModified.status, 304, attempt);
        assert.equal(notModified.headers.get('cache-control'), 'private, no-cache', `${attempt} 304`);
      }
      assert.equal((await get('/zaken')).headers.get('cache-control'), 'no-store', 'a list has no tag to revalidate with');
      assert.equal((await get(`/zaken/${crypto.randomUUID()}`)).headers.get('cache-control'), 'no-store');
      const written = await post('/rollen', rolInput(family));
      assert.equal(written.status, 201);
      assert.equal(written.headers.get('cache-control'), 'no-store');
    });

    it('declares If-None-Match, ETag and 304 on every detail read in the OpenAPI document, GET and its documented HEAD', async () => {
      const document = (await api.request('/openapi.json')).body;
      const retrieves = Object.entries(document.paths as Record<string, any>).filter(([, item]) => item.get?.operationId?.endsWith('_retrieve'));
      assert.ok(retrieves.length >= 12, `${retrieves.length} detail reads`);
      assert.ok(document.paths['/zaken/{uuid}'].head);
      for (const [path, item] of retrieves) {
        // HEAD is served on every GET; the document lists it where the contract does.
        for (const method of item.head ? ['get', 'head'] : ['get']) {
          const operation = item[method];
          assert.ok(operation.parameters.some((p: any) => p.in === 'header' && p.name === 'If-None-Match'), `${method} ${path} If-None-Match`);
          assert.ok(operation.responses['200'].headers.ETag, `${method} ${path} ETag`);
          assert.ok(operation.responses['304'], `${method} ${path} 304`);
        }
      }
    });
  });
}

function rolInput(family: ZaakFamily, overrides: Record<string, unknown> = {}) {
  return {
    zaak: family.zaak.url,
    betrokkeneType: 'medewerker',
    roltype: TYPES.roltypeBehandelaar,
    roltoelichting: 'behandelt ook',
    betrokkeneIdentificatie: { identificatie: 'm1' },
    ...overrides,
  };
}
