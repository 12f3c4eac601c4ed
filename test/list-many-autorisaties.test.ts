import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { ZAAKTYPE, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const SECRET = 'many-autorisaties-secret-of-at-least-32-bytes';
const ZAKEN = 100_000;
const ZAAKTYPEN = 100;
const zaaktypeUrl = (i: number) => `http://catalogus.test/zaaktypen/veel-${String(i).padStart(4, '0')}`;
/** A zaaktype of 5,000 zaken, every one zeer geheim. */
const GEHEIM_ZAAKTYPE = 'http://catalogus.test/zaaktypen/veel-geheim';
const lezen = (zaaktype: string, max: string) => ({ component: 'zrc', scopes: ['zaken.lezen'], zaaktype, maxVertrouwelijkheidaanduiding: max });

/**
 * 200 autorisaties: every zaaktype of the data up to intern or beperkt openbaar (about half the
 * zaken), and 100 zaaktypen no zaak has; 20: a fifth of the zaaktypen (merged walks per zaaktype).
 */
const APPLICATIONS: Applicatie[] = [
  { clientIds: ['alles'], label: 'Alles', heeftAlleAutorisaties: true, autorisaties: [] },
  {
    clientIds: ['tweehonderd'],
    label: '200 autorisaties',
    heeftAlleAutorisaties: false,
    autorisaties: [
      ...Array.from({ length: ZAAKTYPEN }, (_, i) => lezen(zaaktypeUrl(i), i % 2 ? 'beperkt_openbaar' : 'intern')),
      ...Array.from({ length: 100 }, (_, i) => lezen(`http://elders.test/zaaktypen/${i}`, 'geheim')),
    ],
  },
  {
    clientIds: ['twintig'],
    label: '20 autorisaties',
    heeftAlleAutorisaties: false,
    // And a zaaktype whose zaken are all more confidential than it may read.
    autorisaties: [...Array.from({ length: 19 }, (_, k) => lezen(zaaktypeUrl(k * 5 + 1), k % 2 ? 'openbaar' : 'zaakvertrouwelijk')), lezen(GEHEIM_ZAAKTYPE, 'openbaar')],
  },
];
const CLIENTS = ['alles', 'tweehonderd', 'twintig'] as const;

/** A plan node of `EXPLAIN (FORMAT JSON)`. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** The nodes of a plan, depth first. */
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/**
 * Clients authorized for many (zaaktype, highest confidentiality) pairs at 100k zaken: their pages
 * take as many statements as any client's, and read the zaak table along an index that stops at the
 * page's LIMIT (no sort of every authorized zaak), for lists, `_zoek` and a record list.
 */
for (const backend of BACKENDS.filter((candidate) => candidate.name === 'PostgreSQL')) {
  describe(`lists of clients with many autorisaties at ${ZAKEN.toLocaleString('en')} zaken on ${backend.name}`, function () {
    this.timeout(120_000);
    let api: TestServer;
    let knex: Knex;
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${await signZgwJwt(clientId, SECRET)}` } });

    /**
     * The statements (text and values) `work` sends, the outbox dispatcher's polls left out, and the
     * transactions of the registry's background work (the counter rows' folding every 30 s): a list reads outside one.
     */
    const statements = async (work: () => Promise<unknown>) => {
      const sent: { sql: string; bindings: unknown[] }[] = [];
      const listener = (query: { sql: string; bindings?: unknown[]; __knexTxId?: string }) => {
        if (!/\boutbox\b/.test(query.sql) && !query.__knexTxId) sent.push({ sql: query.sql, bindings: query.bindings ?? [] });
      };
      knex.on('query', listener);
      try {
        await work();
      } finally {
        knex.off('query', listener);
      }
      return sent;
    };

    /** The executed plan of a statement the registry sent, on a connection of the storage's pool. */
    const planOf = async (statement: { sql: string; bindings: unknown[] }): Promise<PlanNode> => {
      const client = knex.client as unknown as { acquireConnection(): Promise<any>; releaseConnection(c: unknown): Promise<void> };
      const connection = await client.acquireConnection();
      try {
        const result = await connection.query({ text: `explain (analyze, format json) ${statement.sql}`, values: statement.bindings });
        return result.rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      } finally {
        await client.releaseConnection(connection);
      }
    };

    before(async () => {
      api = await startRegistry(await backend.open({ connections: 2 }), { authorization: { clients: Object.fromEntries(CLIENTS.map((c) => [c, SECRET])), source: staticAuthorizations(APPLICATIONS) } });
      knex = api.registry.services.storage.knex;
      const created = await as('alles', '/zaken', { method: 'POST', json: zaakInput({ zaaktype: ZAAKTYPE }) });
      assert.equal(created.status, 201, created.text);
      // Ranks cycle apart from zaaktypen: every zaaktype has zaken of every level.
      await knex.raw(
        `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank, archiefstatus)
         select gen_random_uuid(), 'VEEL-' || i, bronorganisatie, 'http://catalogus.test/zaaktypen/veel-' || lpad((i % ${ZAAKTYPEN})::text, 4, '0'), registratiedatum,
                verantwoordelijke_organisatie, startdatum, (array['openbaar','beperkt_openbaar','intern','zaakvertrouwelijk','vertrouwelijk','confidentieel','geheim','zeer_geheim'])[1 + (i / ${ZAAKTYPEN}) % 8],
                1 + (i / ${ZAAKTYPEN}) % 8, case when i % 3 = 0 then 'gearchiveerd' else 'nog_te_archiveren' end
         from zaak, generate_series(1, ${ZAKEN}) as i`,
      );
      await knex.raw(
        `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
         select gen_random_uuid(), 'GEHEIM-' || i, bronorganisatie, ?, registratiedatum, verantwoordelijke_organisatie, startdatum, 'zeer_geheim', 8
         from (select * from zaak limit 1) as zaak, generate_series(1, 5000) as i`,
        [GEHEIM_ZAAKTYPE],
      );
      await knex.raw(`insert into status (uuid, zaak_id, statustype, datum_status_gezet) select gen_random_uuid(), id, 'http://catalogus.test/statustypen/veel', now() from zaak`);
      await knex.raw('vacuum analyze');
    });
    after(async () => api?.close());

    /** The statements of `GET path` as `clientId`, after one request that warmed caches. */
    const perRequest = async (clientId: string, request: () => Promise<{ status: number; text: string; body: any }>) => {
      await request();
      const sent = await statements(async () => {
        const response = await request();
        assert.equal(response.status, 200, `${clientId}: ${response.text}`);
      });
      return sent;
    };

    const lists: [string, (clientId: string) => Promise<any>][] = [
      ...[1, 2, 5, 10].map((page) => [`GET /zaken?page=${page}`, (clientId: string) => as(clientId, `/zaken?page=${page}`)] as [string, (clientId: string) => Promise<any>]),
      ['POST /zaken/_zoek', (clientId: string) => as(clientId, '/zaken/_zoek', { method: 'POST', json: { archiefstatus: 'nog_te_archiveren' } })],
      ['GET /statussen?page=3', (clientId: string) => as(clientId, '/statussen?page=3')],
    ];
    for (const [name, request] of lists) {
      it(`${name}: as many statements with 20 and with 200 autorisaties as with all`, async () => {
        const counts = [];
        for (const clientId of CLIENTS) counts.push((await perRequest(clientId, () => request(clientId))).length);
        assert.ok(counts[0] > 0);
        assert.deepEqual(counts, [counts[0], counts[0], counts[0]], `statements of ${CLIENTS.join(', ')}`);
      });
    }

    it('200 autorisaties: page 10 walks an index of the zaak table and stops at its LIMIT, its zaaktypen written into the statement', async () => {
      for (const page of [2, 10]) {
        const sent = await perRequest('tweehonderd', () => as('tweehonderd', `/zaken?page=${page}`));
        const pageStatement = sent.find((statement) => /\blimit\b/i.test(statement.sql))!;
        // Nothing bound: one array literal per confidentiality level, planned once per connection.
        assert.deepEqual(pageStatement.bindings, []);
        assert.equal(pageStatement.sql.match(/zaaktype = any\(array\[/g)?.length, 2 * 3, 'an array per level, in the page and in its count');
        if (page !== 10) continue;
        const plan = nodes(await planOf(pageStatement));
        const limit = plan.findIndex((node) => node['Node Type'] === 'Limit');
        const below = nodes(plan[limit]);
        const scan = below.find((node) => node['Relation Name'] === 'zaak')!;
        assert.match(scan['Node Type'], /^Index (Only )?Scan$/, `the zaak table read by ${scan['Node Type']}`);
        assert.ok(!below.some((node) => node['Node Type'] === 'Sort'), 'no sort below the LIMIT');
        // Page 10 is zaken 901-1000 of those it may read, about half of all: at most a few thousand rows read.
        assert.ok(scan['Actual Rows']! <= 1000, `rows kept: ${scan['Actual Rows']}`);
      }
    });

    it('20 autorisaties: page 10 is merged from index walks per zaaktype and readable level, each stopping early, none over zaken it may not read', async () => {
      const sent = await perRequest('twintig', () => as('twintig', '/zaken?page=10'));
      const pageStatement = sent.find((statement) => /\) as authorized/.test(statement.sql))!;
      const plan = nodes(await planOf(pageStatement));
      const scans = plan.filter((node) => node['Relation Name'] === 'zaak') as (PlanNode & { 'Actual Loops'?: number; 'Rows Removed by Filter'?: number })[];
      // One walk per level up to the highest it may read: 10 zaaktypen up to zaakvertrouwelijk (4 levels), 9 and the geheim one up to openbaar.
      assert.equal(scans.length, 10 * 4 + 9 + 1);
      for (const scan of scans) {
        assert.match(scan['Node Type'], /^Index (Only )?Scan$/);
        assert.equal(scan['Index Name'], 'zaak_zaaktype_level_id_index');
        // A walk reads only zaken it may show: none of another level is passed and dropped.
        assert.ok(!scan['Rows Removed by Filter'], `rows passed: ${scan['Rows Removed by Filter']}`);
        assert.ok(scan['Actual Rows']! <= 1000, `rows read: ${scan['Actual Rows']}`);
      }
      // A level of a zaaktype with no zaak (the geheim zaaktype at openbaar) costs one descent of the index, and reads nothing.
      const empty = scans.filter((scan) => scan['Actual Rows'] === 0);
      assert.equal(empty.length, 1, `walks that found nothing: ${empty.length}`);
      assert.deepEqual(pageStatement.bindings, [], 'the zaaktypen written into the statement');
      assert.ok(!plan.some((node) => node['Node Type'] === 'Sort' && nodes(node).some((below) => below['Relation Name'] === 'zaak')), 'no sort of zaken');
    });

    it('POST /zaken/_zoek on zaaktypen whose zaken it may mostly not read walks only the readable levels', async () => {
      // The geheim zaaktype's 5,000 zaken are all more confidential than it may read; a walk along the ids passes all 100,000.
      const json = { zaaktype__in: [GEHEIM_ZAAKTYPE, zaaktypeUrl(1), zaaktypeUrl(2)] };
      const sent = await perRequest('twintig', () => as('twintig', '/zaken/_zoek?page=2', { method: 'POST', json }));
      const pageStatement = sent.find((statement) => /\) as authorized/.test(statement.sql))!;
      assert.ok(pageStatement, 'merged from walks');
      const scans = nodes(await planOf(pageStatement)).filter((node) => node['Relation Name'] === 'zaak') as (PlanNode & { 'Rows Removed by Filter'?: number })[];
      // zaaktype 1 up to zaakvertrouwelijk (4 levels), the geheim one up to openbaar; zaaktype 2 it may not read.
      assert.equal(scans.length, 4 + 1);
      for (const scan of scans) {
        assert.equal(scan['Index Name'], 'zaak_zaaktype_level_id_index');
        assert.ok(!scan['Rows Removed by Filter'] && scan['Actual Rows']! <= 200, `rows read: ${scan['Actual Rows']}, passed: ${scan['Rows Removed by Filter']}`);
      }
      const response = await as('twintig', '/zaken/_zoek', { method: 'POST', json });
      const readable = await knex('zaak').where('zaaktype', zaaktypeUrl(1)).where('vertrouwelijkheid_rank', '<=', 4).count({ n: '*' });
      assert.equal(response.body.count, Number(readable[0].n));
    });

    it('GET /statussen with 200 autorisaties: its page and its count bind no zaaktype, the zaaktypen written in', async () => {
      const sent = await perRequest('tweehonderd', () => as('tweehonderd', '/statussen?page=2'));
      const written = sent.filter((statement) => /zaaktype = any\(array\[/.test(statement.sql));
      assert.equal(written.length, 2, sent.map((statement) => statement.sql.slice(0, 120)).join('\n'));
      // At most the record kind is bound (the count's `kind = 'status'`).
      for (const statement of written) assert.ok(statement.bindings.every((value) => value === 'status'), JSON.stringify(statement.bindings).slice(0, 200));
    });

    it('POST /zaken/_zoek with 200 autorisaties reads along an index and stops at its LIMIT', async () => {
      const sent = await perRequest('tweehonderd', () => as('tweehonderd', '/zaken/_zoek?page=5', { method: 'POST', json: { archiefstatus: 'nog_te_archiveren' } }));
      const pageStatement = sent.find((statement) => /\blimit\b/i.test(statement.sql))!;
      const plan = nodes(await planOf(pageStatement));
      const below = nodes(plan[plan.findIndex((node) => node['Node Type'] === 'Limit')]);
      const scan = below.find((node) => node['Relation Name'] === 'zaak')!;
      assert.match(scan['Node Type'], /^Index (Only )?Scan$/);
      assert.ok(!below.some((node) => node['Node Type'] === 'Sort'), 'no sort below the LIMIT');
    });
  });
}
