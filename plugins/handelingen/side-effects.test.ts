import assert from 'node:assert/strict';
import { archive, invalidParam, notifications, zrcRules, type Plugin, type RequestContext } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { normalized, parts, registreren, rowCounts, storedRows } from '../../test/helpers/handelingen.js';
import { TYPES, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { startNotificatiesApi, type NotificatiesApiServer } from '../../test/helpers/zgw-servers.js';
import { handelingen } from './index.js';

// A delivery is not timed out on a busy machine: one that was would arrive twice (at least once), which this comparison would count.
const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 10_000, pollIntervalMs: 50, maxAttempts: 4, leaseMs: 20_000 };

/**
 * Fails the n-th part of an operation (`X-Fail-Part: rol_create#2`, counted from 0 within the
 * request) after it wrote: the handeling must roll back everything written before it, that part included.
 */
function failingPart(): Plugin {
  const seen = new WeakMap<RequestContext, Map<string, number>>();
  return {
    name: 'failing-part',
    afterWrite(ctx) {
      const [operation, index = '0'] = (ctx.req.get('x-fail-part') ?? '').split('#');
      if (!ctx.partOf || operation !== ctx.operation.id) return;
      const counts = seen.get(ctx.partOf) ?? new Map<string, number>();
      seen.set(ctx.partOf, counts);
      const n = counts.get(operation) ?? 0;
      counts.set(operation, n + 1);
      if (n === Number(index)) throw invalidParam('nonFieldErrors', 'test-failure', `Deel ${operation}#${n} faalt na het schrijven.`);
    },
  };
}

interface Registry {
  api: TestServer;
  nrc: NotificatiesApiServer;
}

async function registryWithNotifications(storage: Parameters<typeof startRegistry>[0]): Promise<Registry> {
  const nrc = await startNotificatiesApi();
  const api = await startRegistry(storage, {
    plugins: [zrcRules(), archive(), handelingen(), notifications({ url: nrc.url }), failingPart()],
    outbox: FAST_OUTBOX,
  });
  return { api, nrc };
}

const post = async ({ api }: Registry, path: string, json: unknown, headers: Record<string, string> = {}) => {
  const response = await api.request(path, { method: 'POST', json, headers });
  return response;
};
const ok = async (registry: Registry, method: string, path: string, json?: unknown) => {
  const response = await registry.api.request(path, { method, json });
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
  return response.body;
};
const settled = (registry: Registry) => eventually(async () => assert.equal((await registry.api.registry.outbox.counts()).pending, 0));

/** Everything a call leaves behind, made comparable between two registries: stored rows (audit trail included) and notifications. */
async function sideEffects(registry: Registry): Promise<unknown> {
  await settled(registry);
  const knex = registry.api.registry.services.storage.knex;
  const uuids = new Map<string, string>();
  return {
    rows: normalized(await storedRows(knex), registry.api.base, uuids),
    notifications: normalized(registry.nrc.notificaties, registry.api.base, uuids),
  };
}

/** Each handeling, and the separate calls a client would make to the same effect. */
const SCENARIOS: { name: string; prepare(r: Registry): Promise<any>; separate(r: Registry, zaak: any): Promise<void>; handeling(r: Registry, zaak: any): Promise<void> }[] = [
  {
    name: 'zaak_registreren',
    prepare: async () => undefined,
    async separate(r) {
      const body = registreren();
      const zaak = await ok(r, 'POST', '/zaken', body.zaak);
      await ok(r, 'POST', '/statussen', { ...body.status, zaak: zaak.url });
      for (const rol of body.rollen) await ok(r, 'POST', '/rollen', { ...rol, zaak: zaak.url });
      for (const object of body.zaakobjecten) await ok(r, 'POST', '/zaakobjecten', { ...object, zaak: zaak.url });
    },
    handeling: async (r) => void (await ok(r, 'POST', '/zaak_registreren', registreren())),
  },
  {
    name: 'zaak_opschorten',
    prepare: async (r) => (await ok(r, 'POST', '/zaak_registreren', registreren())).zaak,
    async separate(r, zaak) {
      await ok(r, 'PATCH', `/zaken/${zaak.uuid}`, { opschorting: { indicatie: true, reden: 'Wacht op stukken' } });
      await ok(r, 'POST', '/statussen', { ...parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z'), zaak: zaak.url });
    },
    handeling: async (r, zaak) =>
      void (await ok(r, 'POST', `/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true, reden: 'Wacht op stukken' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') })),
  },
  {
    name: 'zaak_verlengen',
    prepare: async (r) => (await ok(r, 'POST', '/zaak_registreren', registreren())).zaak,
    async separate(r, zaak) {
      await ok(r, 'PATCH', `/zaken/${zaak.uuid}`, { verlenging: { reden: 'Drukte', duur: 'P14D' } });
      await ok(r, 'POST', '/statussen', { ...parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z'), zaak: zaak.url });
    },
    handeling: async (r, zaak) =>
      void (await ok(r, 'POST', `/zaak_verlengen/${zaak.uuid}`, { zaak: { verlenging: { reden: 'Drukte', duur: 'P14D' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') })),
  },
  {
    name: 'zaak_bijwerken',
    prepare: async (r) => ok(r, 'POST', '/zaak_registreren', registreren()),
    async separate(r, { zaak, rollen }) {
      await ok(r, 'PATCH', `/zaken/${zaak.uuid}`, { omschrijving: 'Bijgewerkt' });
      await ok(r, 'POST', '/statussen', { ...parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z'), zaak: zaak.url });
      await ok(r, 'DELETE', `/rollen/${rollen[1].uuid}`);
      await ok(r, 'DELETE', `/rollen/${rollen[2].uuid}`);
      await ok(r, 'PUT', `/rollen/${rollen[0].uuid}`, { ...parts.rol('111222333', TYPES.roltypeInitiator), roltoelichting: 'gewijzigd', zaak: zaak.url });
      await ok(r, 'POST', '/rollen', { ...parts.rol('218153207'), zaak: zaak.url });
    },
    handeling: async (r, { zaak, rollen }) =>
      void (await ok(r, 'POST', `/zaak_bijwerken/${zaak.uuid}`, {
        zaak: { omschrijving: 'Bijgewerkt' },
        status: parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z'),
        rollen: [{ ...parts.rol('111222333', TYPES.roltypeInitiator), roltoelichting: 'gewijzigd', uuid: rollen[0].uuid }, parts.rol('218153207')],
      })),
  },
  {
    name: 'zaak_afsluiten',
    prepare: async (r) => (await ok(r, 'POST', '/zaak_registreren', registreren())).zaak,
    async separate(r, zaak) {
      await ok(r, 'PATCH', `/zaken/${zaak.uuid}`, { omschrijving: 'Afgehandeld' });
      await ok(r, 'POST', '/resultaten', { ...parts.resultaat(), zaak: zaak.url });
      await ok(r, 'POST', '/statussen', { ...parts.eindstatus(), zaak: zaak.url });
    },
    handeling: async (r, zaak) => void (await ok(r, 'POST', `/zaak_afsluiten/${zaak.uuid}`, { zaak: { omschrijving: 'Afgehandeld' }, resultaat: parts.resultaat(), status: parts.eindstatus() })),
  },
];

for (const backend of BACKENDS) {
  describe(`handelingen: side effects on ${backend.name}`, () => {
    describe('the same stored records, audit trail and notifications as the separate calls', () => {
      for (const scenario of SCENARIOS) {
        it(scenario.name, async () => {
          const [separate, handeling] = [await registryWithNotifications(await backend.open()), await registryWithNotifications(await backend.open())];
          try {
            await scenario.separate(separate, await scenario.prepare(separate));
            await scenario.handeling(handeling, await scenario.prepare(handeling));
            const [expected, actual] = [await sideEffects(separate), await sideEffects(handeling)];
            assert.ok((expected as { notifications: unknown[] }).notifications.length >= 2, 'the separate calls notified');
            assert.deepEqual(actual, expected);
          } finally {
            for (const registry of [separate, handeling]) {
              await registry.api.close();
              await registry.nrc.close();
            }
          }
        });
      }
    });

    describe('a failure in any part leaves nothing: no record, no audit row, no outbox row', () => {
      let registry: Registry;
      before(async () => {
        registry = await registryWithNotifications(await backend.open());
      });
      after(async () => {
        await registry?.api.close();
        await registry?.nrc.close();
      });

      /** The call fails with a 400 naming `part`, and every table has the rows it had. */
      async function leavesNothing(path: string, body: unknown, headers: Record<string, string>, part: string) {
        await settled(registry);
        const knex = registry.api.registry.services.storage.knex;
        const before = await rowCounts(knex);
        const response = await post(registry, path, body, headers);
        assert.equal(response.status, 400, response.text);
        assert.ok(response.body.invalidParams.every((p: { name: string }) => p.name.startsWith(`${part}.`)), `${part}: ${response.text}`);
        assert.deepEqual(await rowCounts(knex), before);
      }

      const REGISTREREN_PARTS = [
        ['zaak_create', 'zaak'],
        ['status_create', 'status'],
        ['rol_create#0', 'rollen.0'],
        ['rol_create#1', 'rollen.1'],
        ['rol_create#2', 'rollen.2'],
        ['zaakobject_create#0', 'zaakobjecten.0'],
        ['zaakobject_create#1', 'zaakobjecten.1'],
      ];
      for (const [failing, part] of REGISTREREN_PARTS) {
        it(`zaak_registreren, failing after ${part} was written`, () => leavesNothing('/zaak_registreren', registreren(), { 'x-fail-part': failing }, part));
      }

      it('zaak_registreren, a rol the rules refuse at position 2 (its roltype is of another zaaktype)', async () => {
        const body = registreren();
        (body.rollen[2] as Record<string, unknown>).roltype = `${TYPES.roltypeBehandelaar.slice(0, -1)}9`;
        await leavesNothing('/zaak_registreren', body, {}, 'rollen.2');
      });

      for (const [failing, part] of [['zaak_partial_update', 'zaak'], ['resultaat_create', 'resultaat'], ['status_create', 'status']]) {
        it(`zaak_afsluiten, failing after ${part} was written (the closing too)`, async () => {
          const { zaak } = await ok(registry, 'POST', '/zaak_registreren', registreren());
          await leavesNothing(`/zaak_afsluiten/${zaak.uuid}`, { zaak: { omschrijving: 'Afgehandeld' }, resultaat: parts.resultaat(), status: parts.eindstatus() }, { 'x-fail-part': failing }, part);
          const now = await ok(registry, 'GET', `/zaken/${zaak.uuid}`);
          assert.equal(now.einddatum, null);
          assert.equal(now.omschrijving, zaak.omschrijving);
        });
      }

      for (const [failing, part] of [['zaak_partial_update', 'zaak'], ['status_create', 'status'], ['rol_destroy', 'rollen'], ['rol_update', 'rollen.0'], ['rol_create', 'rollen.1']]) {
        it(`zaak_bijwerken, failing after ${part} was written`, async () => {
          const { zaak, rollen } = await ok(registry, 'POST', '/zaak_registreren', registreren());
          const body = { zaak: { omschrijving: 'Bijgewerkt' }, status: parts.status(), rollen: [{ ...parts.rol('111222333', TYPES.roltypeInitiator), uuid: rollen[0].uuid }, parts.rol('218153207')] };
          await leavesNothing(`/zaak_bijwerken/${zaak.uuid}`, body, { 'x-fail-part': failing }, part);
        });
      }

      for (const [name, groep] of [['zaak_opschorten', { opschorting: { indicatie: true, reden: 'x' } }], ['zaak_verlengen', { verlenging: { reden: 'x', duur: 'P1D' } }]] as const) {
        for (const [failing, part] of [['zaak_partial_update', 'zaak'], ['status_create', 'status']]) {
          it(`${name}, failing after ${part} was written`, async () => {
            const { zaak } = await ok(registry, 'POST', '/zaak_registreren', registreren());
            await leavesNothing(`/${name}/${zaak.uuid}`, { zaak: groep, status: parts.status() }, { 'x-fail-part': failing }, part);
          });
        }
      }
    });
  });
}
