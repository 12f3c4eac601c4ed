import assert from 'node:assert/strict';
import { twoVersions, V1_SCHEDULE } from '../../examples/two-versions.js';
import { consoleLogger, createRegistry, type Storage } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { startRegistry, testCatalog, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { versioning, type VersionPolicy } from './index.js';

const FIELD = 'betalingsindicatieWeergave';
/** V1_SCHEDULE as headers, computed here rather than by the plugin. */
const V1_HEADERS = {
  deprecation: `@${Date.UTC(2026, 11, 1) / 1000}`,
  sunset: 'Tue, 01 Jun 2027 00:00:00 GMT',
  link: `<${V1_SCHEDULE.changelog}>; rel="deprecation"`,
};

type Operations = Record<string, Record<string, { operationId?: string; deprecated?: boolean; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
type Schemas = Record<string, { properties: Record<string, unknown>; required: string[] }>;

for (const backend of BACKENDS) {
  describe(`versioning plugin on ${backend.name}`, () => {
    describe('two majors side by side (examples/two-versions.ts)', () => {
      let api: TestServer;
      let v1: string;
      let v2: string;
      let zaak: any;

      before(async () => {
        api = await startRegistry(await backend.open(), { plugins: [twoVersions()] });
        v1 = api.base;
        v2 = api.base.replace(/\/v1$/, '/v2');
        zaak = (await api.request(`${v1}/zaken`, { method: 'POST', json: zaakInput() })).body;
      });
      after(() => api?.close());

      it('serves each version at its own base path', () => {
        assert.deepEqual(
          api.registry.versions.map(({ version, basePath }) => ({ version, basePath })),
          [
            { version: '1.8.0', basePath: '/zaken/api/v1' },
            { version: '2.0.0', basePath: '/zaken/api/v2' },
          ],
        );
      });

      it('a zaak created in v1 reads in both, each in its own representation and base path', async () => {
        assert.equal(zaak[FIELD], '');
        const old = await api.request(`${v1}/zaken/${zaak.uuid}`);
        const current = await api.request(`${v2}/zaken/${zaak.uuid}`);
        assert.equal(old.status, 200);
        assert.equal(current.status, 200);
        assert.equal(old.body.url, `${v1}/zaken/${zaak.uuid}`);
        assert.equal(current.body.url, `${v2}/zaken/${zaak.uuid}`);
        assert.ok(FIELD in old.body);
        assert.ok(!(FIELD in current.body));
        // Only the dropped field and the base path differ.
        const { [FIELD]: _dropped, ...rest } = old.body;
        assert.deepEqual(current.body, JSON.parse(JSON.stringify(rest).replaceAll('/zaken/api/v1/', '/zaken/api/v2/')));
      });

      it('lists: every item of v2 lacks the field, v1 keeps it', async () => {
        const old = await api.request(`${v1}/zaken`);
        const current = await api.request(`${v2}/zaken`);
        assert.equal(old.status, 200);
        assert.equal(current.status, 200);
        assert.equal(current.body.count, old.body.count);
        assert.ok(current.body.results.length > 0);
        for (const item of old.body.results) {
          assert.ok(FIELD in item);
          assert.ok(item.url.startsWith(`${v1}/zaken/`));
        }
        for (const item of current.body.results) {
          assert.ok(!(FIELD in item));
          assert.ok(item.url.startsWith(`${v2}/zaken/`));
        }
      });

      it('a write through v2 answers in v2 as well', async () => {
        const created = await api.request(`${v2}/zaken`, { method: 'POST', json: zaakInput() });
        assert.equal(created.status, 201);
        assert.ok(!(FIELD in created.body));
        assert.ok(created.body.url.startsWith(`${v2}/zaken/`));
        const patched = await api.request(created.body.url, { method: 'PATCH', json: { omschrijving: 'Nieuw' } });
        assert.equal(patched.status, 200);
        assert.equal(patched.body.omschrijving, 'Nieuw');
        assert.ok(!(FIELD in patched.body));
      });

      it('API-Version names the version on successes and errors', async () => {
        const unknownUuid = '00000000-0000-4000-8000-000000000000';
        for (const [base, version] of [
          [v1, '1.8.0'],
          [v2, '2.0.0'],
        ]) {
          const responses = [
            [await api.request(`${base}/zaken/${zaak.uuid}`), 200],
            [await api.request(`${base}/zaken/${unknownUuid}`), 404],
            [await api.request(`${base}/geen-resource`), 404],
          ] as const;
          for (const [response, status] of responses) {
            assert.equal(response.status, status);
            assert.equal(response.headers.get('api-version'), version);
          }
        }
      });

      it('Deprecation, Sunset and Link on v1 responses, errors included; none on v2', async () => {
        const requests: [string, RequestInit & { json?: unknown }][] = [
          [`/zaken/${zaak.uuid}`, {}],
          ['/zaken', {}],
          ['/openapi.json', {}],
          ['/zaken/00000000-0000-4000-8000-000000000000', {}],
          ['/zaken', { method: 'POST', json: { bronorganisatie: 'x' } }],
          // Answered by the router before any operation runs: still the version's headers.
          ['/geen-resource', {}],
          ['/zaken', { method: 'PUT', json: {} }],
          ['/zaken', { method: 'POST', body: 'tekst', headers: { 'content-type': 'text/plain' } }],
        ];
        for (const [path, init] of requests) {
          const old = await api.request(`${v1}${path}`, init);
          assert.deepEqual(
            { deprecation: old.headers.get('deprecation'), sunset: old.headers.get('sunset'), link: old.headers.get('link') },
            V1_HEADERS,
            `${init.method ?? 'GET'} ${path} (${old.status})`,
          );
          const current = await api.request(`${v2}${path}`, init);
          assert.equal(current.status, old.status);
          for (const name of ['deprecation', 'sunset', 'link']) assert.equal(current.headers.get(name), null, `${name} on v2 ${path}`);
        }
      });

      it('openapi.json per version: its version and server, v2 without the field, v1 deprecated', async () => {
        const old = (await api.request(`${v1}/openapi.json`)).body;
        const current = (await api.request(`${v2}/openapi.json`)).body;
        assert.equal(old.info.version, '1.8.0');
        assert.equal(current.info.version, '2.0.0');
        assert.equal(old.servers[0].url, v1);
        assert.equal(current.servers[0].url, v2);

        const oldZaak = (old.components.schemas as Schemas).Zaak;
        const currentZaak = (current.components.schemas as Schemas).Zaak;
        assert.ok(FIELD in oldZaak.properties);
        assert.ok(oldZaak.required.includes(FIELD));
        assert.ok(!(FIELD in currentZaak.properties));
        assert.deepEqual(currentZaak.required, oldZaak.required.filter((name) => name !== FIELD));

        const operations = (document: { paths: Operations }) => Object.values(document.paths).flatMap((item) => Object.values(item));
        assert.ok(operations(old).length > 10);
        for (const operation of operations(old)) {
          assert.equal(operation.deprecated, true);
          for (const response of Object.values(operation.responses)) {
            for (const header of ['Deprecation', 'Sunset', 'Link']) assert.ok(header in (response.headers ?? {}), header);
          }
        }
        // Only what the contract itself deprecates (zaakverzoeken, klantcontacten) is deprecated in the current version.
        for (const operation of operations(current)) {
          assert.equal(operation.deprecated, /^(zaakverzoek|klantcontact)_/.test(operation.operationId ?? '') || undefined, operation.operationId);
          for (const response of Object.values(operation.responses)) assert.ok(!('Deprecation' in (response.headers ?? {})));
        }
        assert.match(old.info.description, /Versie 1\.8\.0 is verouderd per 2026-12-01 en wordt na 2027-06-01 niet meer aangeboden; stap over op versie 2\.0\.0\./);
        assert.ok(old.info.description.includes(V1_SCHEDULE.changelog!));
        assert.doesNotMatch(current.info.description, /Verouderd/);
      });

      it('registry.openapi(version) gives each document with its relative base path', () => {
        assert.deepEqual(api.registry.openapi('1.8.0').servers, [{ url: '/zaken/api/v1' }]);
        assert.deepEqual(api.registry.openapi().servers, [{ url: '/zaken/api/v2' }]);
      });
    });

    describe('one version', () => {
      let api: TestServer;
      before(async () => {
        api = await startRegistry(await backend.open(), { plugins: [versioning({ versions: [{ version: '2.1.0' }] })] });
      });
      after(() => api?.close());

      it('is served at /zaken/api/v2 with its version and no schedule', async () => {
        const v2 = api.base.replace(/\/v1$/, '/v2');
        const created = await api.request(`${v2}/zaken`, { method: 'POST', json: zaakInput() });
        assert.equal(created.status, 201);
        assert.equal(created.headers.get('api-version'), '2.1.0');
        assert.equal(created.headers.get('deprecation'), null);
        assert.ok(created.body.url.startsWith(`${v2}/zaken/`));
        assert.equal((await api.request(`${v2}/openapi.json`)).body.info.version, '2.1.0');
        // No v1 router: the request falls through to Express's own 404, without API-Version.
        const old = await api.request(`${api.base}/zaken`);
        assert.equal(old.status, 404);
        assert.equal(old.headers.get('api-version'), null);
      });
    });
  });
}

describe('versioning plugin: options', () => {
  const schedule = { deprecated: '2026-12-01', sunset: '2027-06-01' };
  let storage: Storage;
  before(async () => (storage = await BACKENDS[0].open()));
  after(() => storage?.close());
  // A rejected createRegistry closes its storage: the attempts share one that stays open.
  const attempt = (versions: VersionPolicy[]) =>
    createRegistry({ storage: { ...storage, close: async () => {} }, preset: 'none', catalog: testCatalog(), authorization: 'development', logger: consoleLogger('silent'), plugins: [versioning({ versions })] });
  const refused: [string, VersionPolicy[], RegExp][] = [
    ['no version', [], /plugin "versioning" failed in setup: "versions" needs one or two versions/],
    ['three majors', [{ version: '1.5.1' }, { version: '2.0.0' }, { version: '3.0.0' }], /at most two major versions at once/],
    ['two versions of one major', [{ version: '1.5.1' }, { version: '1.6.0' }], /one version per major/],
    ['a version that is no semver', [{ version: '1.5' }], /"1\.5" is no semantic version/],
    ['a deprecation on the newest', [{ version: '1.5.1' }, { version: '2.0.0', deprecation: schedule }], /version 2\.0\.0 is the newest: a deprecation would leave its clients no version to move to/],
    ['a deprecation on the only version', [{ version: '1.5.1', deprecation: schedule }], /version 1\.5\.1 is the newest/],
    [
      'a sunset before the deprecation',
      [{ version: '1.5.1', deprecation: { deprecated: '2027-06-01', sunset: '2026-12-01' } }, { version: '2.0.0' }],
      /version 1\.5\.1: sunset 2026-12-01 must come after deprecated 2027-06-01/,
    ],
    ['a day that does not exist', [{ version: '1.5.1', deprecation: { ...schedule, sunset: '2027-02-30' } }, { version: '2.0.0' }], /version 1\.5\.1: sunset "2027-02-30" is no ISO date/],
    ['a date-time without a zone', [{ version: '1.5.1', deprecation: { ...schedule, deprecated: '2026-12-01T10:00' } }, { version: '2.0.0' }], /deprecated "2026-12-01T10:00" is no ISO date/],
    ['a changelog that is no URL', [{ version: '1.5.1', deprecation: { ...schedule, changelog: 'CHANGELOG.md' } }, { version: '2.0.0' }], /changelog "CHANGELOG\.md" is no http\(s\) URL/],
  ];
  for (const [what, versions, message] of refused) {
    it(`createRegistry rejects ${what}`, () => assert.rejects(attempt(versions), message));
  }

  it("names a version's misspelt key when the plugin is made, with the one meant", () => {
    assert.throws(
      () => versioning({ versions: [{ version: '1.5.1', deprecaton: schedule } as never, { version: '2.0.0' }] }),
      { name: 'OptionsError', message: 'versioning: versions[0].deprecaton is not a known option (did you mean deprecation?); allowed: version, deprecation, serialize, document' },
    );
    assert.throws(() => versioning({ versions: [{ version: '1.5.1', deprecation: { ...schedule, sunst: '2027-06-01' } as never }, { version: '2.0.0' }] }), /versions\[0\]\.deprecation\.sunst is not a known option \(did you mean sunset\?\)/);
  });

  it('accepts date-times with a zone and versions in any order', async () => {
    const registry = await attempt([{ version: '2.0.0' }, { version: '1.5.1', deprecation: { deprecated: '2026-12-01T12:00:00+01:00', sunset: '2027-06-01T00:00:00Z' } }]);
    try {
      assert.deepEqual(registry.versions.map((v) => v.version), ['1.5.1', '2.0.0']);
      assert.match(String((registry.openapi('1.5.1').info as { description: string }).description), /verouderd per 2026-12-01T12:00:00\+01:00/);
    } finally {
      await registry.close();
    }
  });
});
