import assert from 'node:assert/strict';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const SECRET = 'zaaknotities-secret-of-at-least-32-bytes';

function app(clientId: string, scopes: string[], max = 'zeer_geheim', zaaktype = ZAAKTYPE): Applicatie {
  return {
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: clientId === 'admin',
    autorisaties: clientId === 'admin' ? [] : [{ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: max }],
  };
}

const APPLICATIONS = [
  app('admin', []),
  app('lezer', ['zaken.lezen'], 'openbaar'),
  app('schrijver', ['zaken.lezen', 'zaken.bijwerken'], 'zaakvertrouwelijk'),
  app('alleen-lezen', ['zaken.lezen']),
  // The contract asks zaken.bijwerken of every change to a note; geforceerd-bijwerken alone is not it.
  app('geforceerd', ['zaken.lezen', 'zaken.geforceerd-bijwerken']),
];

/** zrc-006 through a note's zaak: what a client may not see of the zaak it does not see of its notes, nor change. */
for (const backend of BACKENDS) {
  describe(`ZaakNotities authorized through their zaak (zrc-006) on ${backend.name}`, () => {
    let api: TestServer;
    let zaken: Record<'open' | 'geheim' | 'ander', any>;
    let notes: Record<'open' | 'geheim' | 'ander', any[]>;
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${await signZgwJwt(clientId, SECRET)}` } });
    const created = async (path: string, json: unknown) => {
      const response = await as('admin', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const note = (zaak: any, onderwerp: string) => ({ gerelateerdAan: zaak.url, onderwerp, tekst: `Over ${onderwerp}.` });
    /** The notes and the audit trail, which a refused write must leave as they were. */
    const stored = async () => {
      const knex = api.registry.services.storage.knex;
      return { notes: await knex('zaaknotitie').orderBy('id').select('uuid', 'zaak_id', 'onderwerp', 'tekst'), trail: (await knex('audittrail').count({ n: '*' }))[0].n };
    };

    before(async () => {
      const clients = Object.fromEntries(APPLICATIONS.map((a) => [a.clientIds[0], SECRET]));
      api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(APPLICATIONS) } });
      zaken = {
        open: await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'openbaar' })),
        geheim: await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'geheim' })),
        ander: await created('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM, vertrouwelijkheidaanduiding: 'openbaar' })),
      };
      // Interleaved, so that the visible notes are not the first rows of the table.
      notes = { open: [], geheim: [], ander: [] };
      for (let i = 0; i < 3; i++) {
        for (const kind of ['geheim', 'open', 'ander'] as const) notes[kind].push(await created('/zaaknotities', note(zaken[kind], `${kind} ${i}`)));
      }
    });
    after(async () => api?.close());

    it('lists, counts and pages only the notes of zaken the client may read', async () => {
      const all = await as('lezer', '/zaaknotities');
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.count, 3);
      assert.deepEqual(all.body.results.map((n: any) => n.url), notes.open.map((n) => n.url));
      const pages = [];
      for (let page = 1; page <= 3; page++) {
        const body = (await as('lezer', `/zaaknotities?pageSize=1&page=${page}`)).body;
        assert.equal(body.count, 3);
        pages.push(...body.results.map((n: any) => n.url));
      }
      assert.deepEqual(pages, notes.open.map((n) => n.url));
      assert.equal((await as('lezer', '/zaaknotities?pageSize=1&page=4')).status, 404);
      for (const kind of ['geheim', 'ander'] as const) {
        const filtered = await as('lezer', `/zaaknotities?gerelateerdAan=${encodeURIComponent(zaken[kind].url)}`);
        assert.deepEqual([filtered.status, filtered.body.count, filtered.body.results], [200, 0, []], kind);
      }
      assert.equal((await as('admin', '/zaaknotities')).body.count, 9);
    });

    it('refuses the detail of a note on a zaak the client may not read, telling nothing of it', async () => {
      assert.equal((await as('lezer', notes.open[0].url)).status, 200);
      for (const kind of ['geheim', 'ander'] as const) {
        const refused = await as('lezer', notes[kind][0].url);
        assert.equal(refused.status, 403, `${kind}: ${refused.text}`);
        assert.equal(refused.body.code, 'permission_denied');
        assert.ok(!refused.text.includes(notes[kind][0].onderwerp), 'the answer shows nothing of the note');
      }
    });

    it('needs zaken.bijwerken for the note’s zaaktype and vertrouwelijkheid to write, and writes nothing when refused', async () => {
      const mine = await as('schrijver', '/zaaknotities', { method: 'POST', json: note(zaken.open, 'eigen') });
      assert.equal(mine.status, 201, mine.text);
      const before = await stored();
      const refusals: [string, string, string, unknown?][] = [
        ['schrijver', 'POST', '/zaaknotities', note(zaken.geheim, 'te geheim')],
        ['schrijver', 'POST', '/zaaknotities', note(zaken.ander, 'ander zaaktype')],
        ['schrijver', 'PATCH', notes.geheim[0].url, { tekst: 'Gewijzigd.' }],
        ['schrijver', 'PUT', notes.ander[0].url, note(zaken.ander, 'gewijzigd')],
        ['schrijver', 'DELETE', notes.geheim[0].url],
        // Moving a note needs the scope on both zaken.
        ['schrijver', 'PATCH', mine.body.url, { gerelateerdAan: zaken.geheim.url }],
        ['alleen-lezen', 'POST', '/zaaknotities', note(zaken.open, 'geen scope')],
        ['alleen-lezen', 'PATCH', notes.open[0].url, { tekst: 'Gewijzigd.' }],
        ['geforceerd', 'POST', '/zaaknotities', note(zaken.open, 'geforceerd')],
        ['geforceerd', 'DELETE', notes.open[0].url],
        ['lezer', 'DELETE', notes.open[0].url],
      ];
      for (const [clientId, method, path, json] of refusals) {
        const response = await as(clientId, path, { method, json });
        assert.deepEqual([response.status, response.body?.code], [403, 'permission_denied'], `${clientId} ${method} ${path}: ${response.text}`);
      }
      assert.deepEqual(await stored(), before);
      const changed = await as('schrijver', mine.body.url, { method: 'PATCH', json: { status: 'definitief' } });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await as('schrijver', mine.body.url, { method: 'DELETE' })).status, 204);
    });
  });
}
