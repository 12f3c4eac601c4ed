import assert from 'node:assert/strict';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const SECRET = 'list-plans-secret-of-at-least-32-bytes';
const APPLICATIONS: Applicatie[] = [
  { clientIds: ['alles'], label: 'Alles', heeftAlleAutorisaties: true, autorisaties: [] },
  {
    clientIds: ['twee'],
    label: 'Twee zaaktypen',
    heeftAlleAutorisaties: false,
    autorisaties: [ZAAKTYPE, ZAAKTYPE_GEHEIM].map((zaaktype) => ({ component: 'zrc', scopes: ['zaken.lezen'], zaaktype, maxVertrouwelijkheidaanduiding: 'geheim' })),
  },
];

/**
 * PostgreSQL plans a named statement anew on each execution while its plan for unknown values looks
 * costlier than the plans for the given ones, as it always did for a bound LIMIT or OFFSET. A list
 * page's statement carries its integers, so from the sixth execution on a connection it runs the
 * plan it made once. Seen in `pg_prepared_statements` of the storage's only connection.
 */
for (const backend of BACKENDS.filter((candidate) => candidate.name === 'PostgreSQL')) {
  describe(`plans of list page statements on ${backend.name}`, () => {
    let api: TestServer;
    const clients = { alles: SECRET, twee: SECRET };
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${await signZgwJwt(clientId, SECRET)}` } });

    before(async () => {
      api = await startRegistry(await backend.open({ connections: 1 }), { authorization: { clients, source: staticAuthorizations(APPLICATIONS) } });
      const response = await as('alles', '/zaken', { method: 'POST', json: zaakInput() });
      assert.equal(response.status, 201, response.text);
      // Enough zaken that a tenth of them, PostgreSQL's guess for an unknown LIMIT, costs more than a page.
      await api.registry.services.storage.knex.raw(
        `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
         select gen_random_uuid(), 'PLAN-' || i, bronorganisatie, case when i % 2 = 0 then ? else ? end, registratiedatum, verantwoordelijke_organisatie, startdatum, 'openbaar', 1
         from zaak, generate_series(1, 30000) as i`,
        [ZAAKTYPE, ZAAKTYPE_GEHEIM],
      );
      await api.registry.services.storage.knex.raw('analyze');
    });
    after(async () => api?.close());

    const pageStatements = async () => {
      const { rows } = await api.registry.services.storage.knex.raw(
        `select name, generic_plans, custom_plans from pg_prepared_statements where statement like '%as "total"%' or statement like '%as total%'`,
      );
      return rows as { name: string; generic_plans: string; custom_plans: string }[];
    };

    /** The plans PostgreSQL made for the named statements `clientId`'s pages ran, after reading page 2 eight times. */
    const plansOfPages = async (clientId: string) => {
      const knex = api.registry.services.storage.knex;
      const before = new Set((await knex.raw('select name from pg_prepared_statements')).rows.map((row: { name: string }) => row.name));
      for (let i = 0; i < 8; i++) {
        const response = await as(clientId, '/zaken?page=2');
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.results.length, 100);
      }
      return (await pageStatements()).filter((row) => !before.has(row.name));
    };

    for (const [clientId, kind] of [['alles', 'all zaaktypen'], ['twee', 'two zaaktypen (merged)']] as const) {
      it(`a page of ${kind} is planned at most five times, then runs its generic plan`, async () => {
        const plans = await plansOfPages(clientId);
        assert.equal(plans.length, 1, 'one named page statement');
        assert.ok(Number(plans[0].custom_plans) <= 5, `custom plans: ${plans[0].custom_plans}`);
        assert.ok(Number(plans[0].generic_plans) >= 3, `generic plans: ${plans[0].generic_plans}`);
      });
    }

    it('pages of another size than the default share one statement, however many pages are read', async () => {
      const before = (await pageStatements()).length;
      // From page 2: page 1 has no offset at all, so a text of its own.
      for (const page of [2, 3, 4, 5]) assert.equal((await as('alles', `/zaken?page=${page}&pageSize=7`)).status, 200);
      assert.equal((await pageStatements()).length, before + 1);
    });
  });
}
