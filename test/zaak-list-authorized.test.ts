import assert from 'node:assert/strict';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { statementsDuring } from './helpers/statements.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { VERTROUWELIJKHEIDAANDUIDING, vertrouwelijkheidRank } from '../src/resources/shared/enums.js';
import { LITERAL_OFFSET_PAGES } from '../src/resources/shared/pagination.js';
import { textArrayLiteral } from '../src/resources/shared/access.js';

const SECRET = 'list-authorized-secret-of-at-least-32-bytes';
const zrc = (zaaktype: string, max: string, scopes = ['zaken.lezen']) => ({ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: max });
/** Zaaktypen no zaak has: an application authorized for many of them lists as one for a few. */
const unused = (n: number) => Array.from({ length: n }, (_, i) => `http://catalogus.test/zaaktypen/ongebruikt-${i}`);

/** A zaaktype URL with what SQL text and knex's bindings treat specially: a quote and question marks. */
const ODD_ZAAKTYPE = "http://catalogus.test/zaaktypen/o'dd?versie=1&x=??";

/** Per application, which zaken it may list: by zaaktype, the highest confidentiality allowed. */
const APPLICATIONS: Record<string, { autorisaties: ReturnType<typeof zrc>[]; may: Map<string, string> }> = {
  // Two authorizations for one zaaktype: the higher level counts, and no zaak is listed twice.
  few: {
    autorisaties: [zrc(ZAAKTYPE, 'openbaar'), zrc(ZAAKTYPE, 'zaakvertrouwelijk'), zrc(ZAAKTYPE_GEHEIM, 'intern'), ...unused(3).map((z) => zrc(z, 'geheim'))],
    may: new Map([
      [ZAAKTYPE, 'zaakvertrouwelijk'],
      [ZAAKTYPE_GEHEIM, 'intern'],
    ]),
  },
  // As many walks (a zaaktype at each level it may read: 4 + 3 + 93 × 1) as a page is merged from, and
  // one more (then the walk over all ids): the same answer.
  hundred: { autorisaties: [zrc(ZAAKTYPE, 'zaakvertrouwelijk'), zrc(ZAAKTYPE_GEHEIM, 'intern'), ...unused(93).map((z) => zrc(z, 'openbaar'))], may: new Map([[ZAAKTYPE, 'zaakvertrouwelijk'], [ZAAKTYPE_GEHEIM, 'intern']]) },
  many: { autorisaties: [zrc(ZAAKTYPE, 'zaakvertrouwelijk'), zrc(ZAAKTYPE_GEHEIM, 'intern'), ...unused(94).map((z) => zrc(z, 'openbaar'))], may: new Map([[ZAAKTYPE, 'zaakvertrouwelijk'], [ZAAKTYPE_GEHEIM, 'intern']]) },
  // A zaaktype it may only create zaken of is not one it lists; a lower level after a higher one changes nothing.
  writer: { autorisaties: [zrc(ZAAKTYPE, 'geheim'), zrc(ZAAKTYPE, 'openbaar'), zrc(ZAAKTYPE_GEHEIM, 'geheim', ['zaken.aanmaken'])], may: new Map([[ZAAKTYPE, 'geheim']]) },
};

/**
 * An application limited to a few zaaktypen gets its unfiltered pages merged from one walk per
 * zaaktype; every page must hold exactly the zaken it may read, in order, with the right count.
 */
for (const backend of BACKENDS) {
  describe(`lists of applications limited to some zaaktypen on ${backend.name}`, () => {
    let api: TestServer;
    /** Every zaak created, in creation (id) order. */
    const zaken: { uuid: string; zaaktype: string; vertrouwelijkheidaanduiding: string }[] = [];
    const applications: Applicatie[] = [
      { clientIds: ['alles'], label: 'Alles', heeftAlleAutorisaties: true, autorisaties: [] },
      ...Object.entries(APPLICATIONS).map(([clientId, app]) => ({ clientIds: [clientId], label: clientId, heeftAlleAutorisaties: false, autorisaties: app.autorisaties })),
      { clientIds: ['odd'], label: 'odd', heeftAlleAutorisaties: false, autorisaties: [zrc(ODD_ZAAKTYPE, 'geheim')] },
      { clientIds: ['odd-many'], label: 'odd-many', heeftAlleAutorisaties: false, autorisaties: [zrc(ODD_ZAAKTYPE, 'geheim'), ...unused(100).map((z) => zrc(z, 'openbaar'))] },
    ];
    const clients = Object.fromEntries(applications.map((app) => [app.clientIds[0], SECRET]));
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${await signZgwJwt(clientId, SECRET)}` } });
    const readable = (clientId: string) =>
      zaken.filter((zaak) => APPLICATIONS[clientId].may.has(zaak.zaaktype) && vertrouwelijkheidRank(zaak.vertrouwelijkheidaanduiding) <= vertrouwelijkheidRank(APPLICATIONS[clientId].may.get(zaak.zaaktype)!)).map((zaak) => zaak.uuid);
    /** All pages of `pageSize` as `clientId` sees them, and the statements that read them. */
    const allPages = async (clientId: string, pageSize: number) => {
      const uuids: string[] = [];
      const counts = new Set<number>();
      const sql = await statementsDuring(api.registry.services.storage.knex, async () => {
        for (let page = 1; ; page++) {
          const response = await as(clientId, `/zaken?pageSize=${pageSize}&page=${page}`);
          if (response.status === 404) break;
          assert.equal(response.status, 200, response.text);
          counts.add(response.body.count);
          uuids.push(...response.body.results.map((zaak: { uuid: string }) => zaak.uuid));
          assert.equal(response.body.next === null, uuids.length === response.body.count, `page ${page}: next`);
        }
      });
      return { uuids, counts: [...counts], merged: sql.some((text) => /\) as authorized/.test(text)) };
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) } });
      // Interleaved types and levels, so every page takes from more than one walk.
      for (let i = 0; i < 23; i++) {
        const input = zaakInput({ zaaktype: i % 3 ? ZAAKTYPE : ZAAKTYPE_GEHEIM, vertrouwelijkheidaanduiding: VERTROUWELIJKHEIDAANDUIDING[i % VERTROUWELIJKHEIDAANDUIDING.length] });
        const response = await as('alles', '/zaken', { method: 'POST', json: input });
        assert.equal(response.status, 201, response.text);
        zaken.push(response.body);
      }
    });
    after(async () => api?.close());

    for (const pageSize of [1, 4, 100]) {
      it(`pages of ${pageSize}: one walk per zaaktype merged, exactly the readable zaken in order`, async () => {
        const expected = readable('few');
        assert.ok(expected.length > 5 && expected.length < zaken.length, 'the application reads some zaken of both types, not all');
        const { uuids, counts, merged } = await allPages('few', pageSize);
        // Pages of one go past the pages whose statements carry their offset, to those that bind it.
        if (pageSize === 1) assert.ok(expected.length > LITERAL_OFFSET_PAGES, 'more pages than carry their offset');
        assert.deepEqual(uuids, expected);
        assert.deepEqual(counts, [expected.length]);
        assert.ok(merged, 'the page was merged from walks per zaaktype');
      });
    }

    for (const [clientId, merges] of [['hundred', true], ['many', false]] as const) {
      it(`an application with ${clientId === 'hundred' ? 100 : 101} walks (zaaktypen × levels it may read) ${merges ? 'is merged' : 'walks all ids'}, with the same answer`, async () => {
        const { uuids, counts, merged } = await allPages(clientId, 4);
        assert.deepEqual(uuids, readable(clientId));
        assert.deepEqual(counts, [readable(clientId).length]);
        assert.equal(merged, merges);
      });
    }

    it('an application with all authorizations pages through every zaak, past the pages that carry their offset', async () => {
      for (const pageSize of [1, 2]) {
        const { uuids, counts } = await allPages('alles', pageSize);
        assert.ok(zaken.length / pageSize > LITERAL_OFFSET_PAGES);
        assert.deepEqual(uuids, zaken.map((zaak) => zaak.uuid));
        assert.deepEqual(counts, [zaken.length]);
      }
    });

    it('lists only the zaaktypen it may read, not those it may only create', async () => {
      const { uuids, merged } = await allPages('writer', 5);
      assert.deepEqual(uuids, readable('writer'));
      assert.ok(merged);
    });

    it('a page number past any table (an offset PostgreSQL would refuse) is a 404, merged or not', async () => {
      for (const page of ['9'.repeat(40), '100000000000000000', String(Number.MAX_SAFE_INTEGER)]) {
        for (const clientId of ['few', 'many', 'alles']) {
          const response = await as(clientId, `/zaken?page=${page}`);
          assert.equal(response.status, 404, `${clientId}, page ${page}: ${response.text}`);
          assert.equal(response.body.code, 'not_found');
        }
        assert.equal((await as('alles', `/statussen?page=${page}`)).status, 404);
      }
    });

    it('an empty ?ordering= is the default order, merged as it is', async () => {
      const sql = await statementsDuring(api.registry.services.storage.knex, async () => {
        const response = await as('few', '/zaken?ordering=&pageSize=100');
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.results.map((zaak: { uuid: string }) => zaak.uuid), readable('few').slice(0, 100));
      });
      assert.ok(sql.some((text) => /\) as authorized/.test(text)), 'merged from walks per zaaktype');
    });

    /** The zaken `clientId` may read of those whose zaaktype is one of `zaaktypen`. */
    const readableOf = (clientId: string, zaaktypen: string[]) => readable(clientId).filter((uuid) => zaaktypen.includes(zaken.find((zaak) => zaak.uuid === uuid)!.zaaktype));

    it('a page filtered on zaaktype alone is merged from the walks of the zaaktypen it names and may read', async () => {
      const cases: [string, RequestInit & { json?: unknown }, string[]][] = [
        [`/zaken?zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}&pageSize=2`, {}, [ZAAKTYPE_GEHEIM]],
        ['/zaken/_zoek?pageSize=2', { method: 'POST', json: { zaaktype__in: [ZAAKTYPE, ZAAKTYPE_GEHEIM, unused(1)[0]] } }, [ZAAKTYPE, ZAAKTYPE_GEHEIM]],
        // Both filters: what they have in common.
        [`/zaken/_zoek?pageSize=2`, { method: 'POST', json: { zaaktype: ZAAKTYPE, zaaktype__in: [ZAAKTYPE, ZAAKTYPE_GEHEIM] } }, [ZAAKTYPE]],
      ];
      for (const [path, init, zaaktypen] of cases) {
        const expected = readableOf('few', zaaktypen);
        assert.ok(expected.length > 2, `${path}: more than a page`);
        const uuids: string[] = [];
        const sql = await statementsDuring(api.registry.services.storage.knex, async () => {
          for (let page = 1; uuids.length < expected.length; page++) {
            const response = await as('few', `${path}&page=${page}`, init);
            assert.equal(response.status, 200, response.text);
            assert.equal(response.body.count, expected.length, `${path}: count`);
            uuids.push(...response.body.results.map((zaak: { uuid: string }) => zaak.uuid));
          }
        });
        assert.deepEqual(uuids, expected, path);
        assert.ok(sql.some((text) => /\) as authorized/.test(text)), `${path}: merged`);
      }
    });

    it('a page filtered on zaaktypen it may not read is empty, with a count of 0', async () => {
      for (const json of [{ zaaktype__in: [unused(1)[0], 'http://catalogus.test/zaaktypen/elders'] }, { zaaktype: ZAAKTYPE, zaaktype__in: [ZAAKTYPE_GEHEIM] }]) {
        const response = await as('few', '/zaken/_zoek', { method: 'POST', json });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual([response.body.count, response.body.results], [0, []]);
      }
      const writer = await as('writer', `/zaken?zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}`);
      assert.deepEqual([writer.body.count, writer.body.results], [0, []], 'a zaaktype it may only create zaken of');
    });

    it('a page with another filter besides the zaaktype is not merged and filters as before', async () => {
      const sql = await statementsDuring(api.registry.services.storage.knex, async () => {
        const response = await as('few', `/zaken?zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}&archiefstatus=nog_te_archiveren&pageSize=100`);
        assert.deepEqual(
          response.body.results.map((zaak: { uuid: string }) => zaak.uuid),
          readableOf('few', [ZAAKTYPE_GEHEIM]),
        );
      });
      assert.ok(!sql.some((text) => /\) as authorized/.test(text)));
    });

    it('writes texts into SQL as they are, quotes, question marks and backslashes included', async () => {
      const texts = [ODD_ZAAKTYPE, 'a\\b', "\\'?\\?", '$1 ?? \\\\ \'\'', 'U&\'x\''];
      const { rows } = await api.registry.services.storage.knex.raw(`select ${textArrayLiteral(texts)} as texts`);
      assert.deepEqual(rows[0].texts, texts);
    });

    it('reads zaaktypen with a quote or a question mark in their URL as they are written', async () => {
      const knex = api.registry.services.storage.knex;
      const moved = zaken.filter((zaak) => zaak.vertrouwelijkheidaanduiding === 'openbaar');
      await knex('zaak').whereIn('uuid', moved.map((zaak) => zaak.uuid)).update({ zaaktype: ODD_ZAAKTYPE });
      try {
        const get = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
          const response = await as(clientId, path, init);
          assert.equal(response.status, 200, response.text);
          return [response.body.count, response.body.results.map((zaak: { uuid: string }) => zaak.uuid)];
        };
        const expected = [moved.length, moved.map((zaak) => zaak.uuid)];
        // Merged from walks, and (past the walks it may merge) one walk along the ids.
        for (const clientId of ['odd', 'odd-many']) {
          assert.deepEqual(await get(clientId, '/zaken'), expected, `${clientId}: unfiltered`);
          assert.deepEqual(await get(clientId, '/zaken/_zoek', { method: 'POST', json: { zaaktype__in: [ODD_ZAAKTYPE] } }), expected, `${clientId}: filtered`);
        }
      } finally {
        for (const zaak of moved) await knex('zaak').where('uuid', zaak.uuid).update({ zaaktype: zaak.zaaktype });
      }
    });
  });
}
