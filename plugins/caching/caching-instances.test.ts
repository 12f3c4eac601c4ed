import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { postgresStorage } from '../../src/index.js';
import { POSTGRES_URL } from '../../test/helpers/backends.js';
import { statementsDuring } from '../../test/helpers/statements.js';
import { startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { caching } from './index.js';

/** Both instances render the same URLs, so that one representation has one tag whichever answers. */
const BASE_URL = 'http://zaken.example.nl/zaken/api/v1';

describe('caching plugin: two instances on one PostgreSQL database', () => {
  let admin: Knex;
  let database: string;
  const instances: TestServer[] = [];
  before(async () => {
    admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
    database = `zaakregister_caching_${randomBytes(6).toString('hex')}`;
    await admin.raw('create database ??', [database]);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    for (let n = 0; n < 2; n++) instances.push(await startRegistry(await postgresStorage({ connection: url.toString() }), { plugins: [caching()], baseUrl: BASE_URL }));
  });
  after(async () => {
    for (const instance of instances) await instance.close();
    await admin.raw('drop database if exists ?? with (force)', [database]);
    await admin.destroy();
  });

  it('never answers 304 for a tag another instance made stale: the revision is read from the database on each request', async () => {
    const [a, b] = instances;
    const created = await a.request('/zaken', { method: 'POST', json: zaakInput({ toelichting: 'eerst' }) });
    assert.equal(created.status, 201, created.text);
    const path = `/zaken/${created.body.uuid}`;
    const first = await a.request(path);
    const staleTag = first.headers.get('etag')!;
    assert.equal((await a.request(path, { headers: { 'if-none-match': staleTag } })).status, 304, 'instance a remembers the tag');
    assert.equal((await b.request(path, { headers: { 'if-none-match': staleTag } })).status, 304, 'instance b renders the same bytes');

    const changed = await b.request(path, { method: 'PATCH', json: { toelichting: 'daarna' } });
    assert.equal(changed.status, 200, changed.text);

    const again = await a.request(path, { headers: { 'if-none-match': staleTag } });
    assert.equal(again.status, 200, 'the tag a remembered is stale: the zaak changed through b');
    assert.equal(again.body.toelichting, 'daarna');
    const freshTag = again.headers.get('etag')!;
    assert.notEqual(freshTag, staleTag);
    assert.equal((await b.request(path, { headers: { 'if-none-match': freshTag } })).status, 304);
    assert.equal((await b.request(path, { headers: { 'if-none-match': staleTag } })).status, 200);
  });

  it('a 304 costs no more statements than a 200, on either instance', async () => {
    const created = await instances[0].request('/zaken', { method: 'POST', json: zaakInput() });
    const path = `/zaken/${created.body.uuid}`;
    for (const instance of instances) {
      const statements = (work: () => Promise<unknown>) => statementsDuring(instance.registry.services.storage.knex, work, (sql) => !/outbox/.test(sql));
      const tag = (await instance.request(path)).headers.get('etag')!;
      const full = await statements(() => instance.request(path));
      let status = 0;
      const conditional = await statements(async () => (status = (await instance.request(path, { headers: { 'if-none-match': tag } })).status));
      assert.equal(status, 304);
      assert.ok(conditional.length <= full.length, `a 304 runs ${conditional.length} statements, a 200 ${full.length}`);
      assert.match(conditional.join('\n'), /"zaak_revision"\."revision"/, 'the revision comes from the database');
    }
  });
});
