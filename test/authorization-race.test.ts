import assert from 'node:assert/strict';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { requestGate } from './helpers/gate.js';
import { TYPES, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const SECRET = 'race-secret-of-at-least-thirty-two-bytes';
const applications: Applicatie[] = [
  { clientIds: ['admin'], label: 'admin', heeftAlleAutorisaties: true, autorisaties: [] },
  {
    clientIds: ['intern'],
    label: 'intern',
    heeftAlleAutorisaties: false,
    autorisaties: [
      {
        component: 'zrc',
        scopes: ['zaken.lezen', 'zaken.bijwerken', 'zaken.statussen.toevoegen', 'zaken.verwijderen'],
        zaaktype: ZAAKTYPE,
        maxVertrouwelijkheidaanduiding: 'intern',
      },
    ],
  },
];

for (const backend of BACKENDS) {
  describe(`Authorization of a write is decided on the zaak as it is locked, on ${backend.name}`, () => {
    let api: TestServer;
    // Holds the limited client after it was authorized, before its transaction (in `validate`).
    const hold = requestGate('validate', 'intern');
    const tokens = new Map<string, string>();
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
      if (!tokens.has(clientId)) tokens.set(clientId, await signZgwJwt(clientId, SECRET));
      return api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${tokens.get(clientId)}` } });
    };
    const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => as('admin', path, init);
    const created = async (path: string, json: unknown) => {
      const response = await admin(path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const raise = async (zaak: any) => {
      const raised = await admin(zaak.url, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'geheim' } });
      assert.equal(raised.status, 200, raised.text);
    };

    before(async () => {
      const clients = Object.fromEntries(applications.map((a) => [a.clientIds[0], SECRET]));
      api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) }, plugins: [hold] });
    });
    after(async () => api?.close());

    /** Runs the limited client's write; while it waits between its authorization and its transaction, the zaak is raised to geheim. */
    async function raisedMeanwhile(zaak: any, write: () => Promise<{ status: number; text: string; body: any }>) {
      const { reached, release } = hold.hold();
      const pending = write();
      await reached;
      await raise(zaak);
      release();
      return pending;
    }

    const writes: [string, (zaak: any) => Promise<{ method: string; url: string; json?: unknown }>][] = [
      ['PATCH /zaken/{uuid}', async (zaak) => ({ method: 'PATCH', url: zaak.url, json: { toelichting: 'door intern' } })],
      ['PUT /zaken/{uuid}', async (zaak) => ({ method: 'PUT', url: zaak.url, json: zaakInput({ toelichting: 'door intern' }) })],
      ['DELETE /zaken/{uuid}', async (zaak) => ({ method: 'DELETE', url: zaak.url })],
      [
        'POST /statussen',
        async (zaak) => ({ method: 'POST', url: '/statussen', json: { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } }),
      ],
      [
        'POST /zaken/{uuid}/zaakeigenschappen',
        async (zaak) => ({ method: 'POST', url: `/zaken/${zaak.uuid}/zaakeigenschappen`, json: { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'x' } }),
      ],
      [
        'PATCH /zaakobjecten/{uuid}',
        async (zaak) => {
          const zaakobject = await created('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1' });
          return { method: 'PATCH', url: zaakobject.url, json: { relatieomschrijving: 'door intern' } };
        },
      ],
      [
        'DELETE /rollen/{uuid}',
        async (zaak) => {
          const rol = await created('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkene: 'http://m.test/1' });
          return { method: 'DELETE', url: rol.url };
        },
      ],
    ];

    for (const [name, prepare] of writes) {
      it(`${name}: refused when the zaak was raised out of reach after the client was authorized; nothing changed`, async () => {
        const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'intern' }));
        const { method, url, json } = await prepare(zaak);
        const trail = (await admin(`/zaken/${zaak.uuid}/audittrail`)).body.length;
        const response = await raisedMeanwhile(zaak, () => as('intern', url, { method, json }));
        assert.equal(response.status, 403, response.text);
        assert.equal(response.body.code, 'permission_denied');
        assert.doesNotMatch(response.text, /geheim/, 'the answer shows nothing of the raised zaak');
        const now = await admin(zaak.url);
        assert.equal(now.status, 200, 'the zaak is still there');
        assert.equal(now.body.vertrouwelijkheidaanduiding, 'geheim');
        // One more entry: the raise, none of the refused write.
        assert.equal((await admin(`/zaken/${zaak.uuid}/audittrail`)).body.length, trail + 1);
      });
    }

    it('a record moved to a zaak out of reach after the client was authorized is not removed', async () => {
      const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'intern' }));
      const secret = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'geheim' }));
      const zaakobject = await created('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1' });
      const { reached, release } = hold.hold();
      const pending = as('intern', zaakobject.url, { method: 'DELETE' });
      await reached;
      assert.equal((await admin(zaakobject.url, { method: 'PATCH', json: { zaak: secret.url } })).status, 200);
      release();
      const response = await pending;
      assert.ok([403, 409].includes(response.status), response.text);
      assert.equal((await admin(zaakobject.url)).body.zaak, secret.url, 'the record is still there, on the secret zaak');
    });

    it('a hoofdzaak raised out of reach after the client was authorized is not linked', async () => {
      const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'intern' }));
      const hoofdzaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'intern' }));
      const response = await raisedMeanwhile(hoofdzaak, () => as('intern', zaak.url, { method: 'PATCH', json: { hoofdzaak: hoofdzaak.url } }));
      assert.equal(response.status, 403, response.text);
      assert.equal((await admin(zaak.url)).body.hoofdzaak, null);
    });

    if (backend.name === 'PostgreSQL') {
      it('under real concurrency, many rounds: a limited write lands before the raise (and shows the old confidentiality) or is refused', async () => {
        // Which outcome a round gets is the scheduler's; each is checked as it comes.
        for (let round = 0; round < 40; round++) {
          const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'intern' }));
          const [limited, raised] = await Promise.all([
            as('intern', zaak.url, { method: 'PATCH', json: { toelichting: `ronde ${round}` } }),
            admin(zaak.url, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'geheim' } }),
          ]);
          assert.equal(raised.status, 200, raised.text);
          const now = (await admin(zaak.url)).body;
          assert.equal(now.vertrouwelijkheidaanduiding, 'geheim');
          if (limited.status === 200) {
            assert.equal(limited.body.vertrouwelijkheidaanduiding, 'intern', `round ${round}: the answer shows the zaak before the raise`);
            assert.equal(now.toelichting, `ronde ${round}`);
          } else {
            assert.equal(limited.status, 403, `round ${round}: ${limited.text}`);
            assert.equal(now.toelichting, '', `round ${round}: a refused write changed nothing`);
          }
        }

      });
    }
  });
}
