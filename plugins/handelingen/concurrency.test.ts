import assert from 'node:assert/strict';
import { request } from 'node:http';
import { archive, zrcRules, type Plugin } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { parts, registreren } from '../../test/helpers/handelingen.js';
import { TYPES, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { handelingen } from './index.js';

/**
 * Holds the request marked `X-Hold` in `beforeWrite`, inside its transaction with the zaak locked,
 * until the test lets it go: the window in which another request on the zaak must wait.
 */
function holdInTransaction(): Plugin & { hold(): { reached: Promise<void>; release(): void } } {
  let held: { reached: () => void; released: Promise<void> } | undefined;
  return {
    name: 'hold-in-transaction',
    async beforeWrite(ctx) {
      if (ctx.partOf || !ctx.req.get('x-hold') || !held) return;
      const { reached, released } = held;
      held = undefined;
      reached();
      await released;
    },
    hold() {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      held = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
}

/**
 * A request on a connection of its own (node:http without an agent): `fetch` queues a second POST to
 * one origin behind one still in flight, and the requests here must reach the registry together.
 */
function sendAlone(url: string, method: string, json: unknown, headers: Record<string, string>): Promise<{ status: number; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(json);
    const req = request(url, { method, agent: false, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

for (const backend of BACKENDS) {
  describe(`handelingen: concurrency on ${backend.name}`, () => {
    let api: TestServer;
    const gate = holdInTransaction();
    const send = (method: string, path: string, json: unknown, hold = false) => sendAlone(`${api.base}${path}`, method, json, hold ? { 'x-hold': 'ja' } : {});

    /** The second request waits: for the zaak's row lock (PostgreSQL), or for PGlite's one connection. */
    async function waiting(): Promise<void> {
      const knex = api.registry.services.storage.knex;
      await eventually(async () => {
        if (backend.name === 'PGlite') {
          assert.ok((knex.client as { pool: { numPendingAcquires(): number } }).pool.numPendingAcquires() > 0);
          return;
        }
        const [{ count }] = await knex('pg_stat_activity').where({ datname: knex.raw('current_database()'), wait_event_type: 'Lock' }).count({ count: '*' });
        assert.ok(Number(count) > 0);
      });
    }

    /** Runs `first` held inside its transaction, starts `second`, and lets `first` go once `second` waits for it. */
    async function overlapping<A, B>(first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
      const held = gate.hold();
      const a = first();
      await held.reached;
      const b = second();
      try {
        await Promise.race([waiting(), b.then((answer) => assert.fail(`the second request did not wait: ${JSON.stringify(answer)}`))]);
      } finally {
        held.release();
      }
      return [await a, await b];
    }

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [zrcRules(), archive(), handelingen(), gate] });
    });
    after(() => api?.close());

    it('two zaak_afsluiten on one zaak at once: one 200, one 400 (the zaak has its resultaat), one eindstatus', async () => {
      const { zaak } = (await send('POST', '/zaak_registreren', registreren())).body;
      const body = { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() };
      const [first, second] = await overlapping(
        () => send('POST', `/zaak_afsluiten/${zaak.uuid}`, body, true),
        () => send('POST', `/zaak_afsluiten/${zaak.uuid}`, body),
      );
      assert.equal(first.status, 200, first.text);
      assert.equal(second.status, 400, second.text);
      assert.deepEqual(second.body.invalidParams.map((p: { name: string; code: string }) => `${p.name} ${p.code}`), ['resultaat.zaak unique']);
      const statussen = (await api.request(`/statussen?zaak=${encodeURIComponent(zaak.url)}`)).body.results;
      assert.equal(statussen.filter((s: { statustype: string }) => s.statustype === TYPES.statustypeEind).length, 1);
      assert.equal((await api.request(`/resultaten?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 1);
    });

    /** The zaak's partial_update audit rows, oldest first: what each saw as the zaak before it. */
    const zaakUpdates = async (uuid: string) =>
      ((await api.request(`/zaken/${uuid}/audittrail`)).body as { resource: string; actie: string; wijzigingen: { oud: Record<string, any> } }[]).filter(
        (row) => row.resource === 'zaak' && row.actie === 'partial_update',
      );

    it('zaak_opschorten waits for a PATCH of the zaak in progress, and writes on the zaak as the PATCH left it', async () => {
      const { zaak } = (await send('POST', '/zaak_registreren', registreren())).body;
      const [patched, suspended] = await overlapping(
        () => send('PATCH', `/zaken/${zaak.uuid}`, { omschrijving: 'Tijdens het opschorten' }, true),
        () => send('POST', `/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true, reden: 'Wacht' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') }),
      );
      assert.equal(patched.status, 200, patched.text);
      assert.equal(suspended.status, 200, suspended.text);
      assert.equal(suspended.body.zaak.omschrijving, 'Tijdens het opschorten');
      const [first, second] = await zaakUpdates(zaak.uuid);
      assert.equal(first.wijzigingen.oud.omschrijving, zaak.omschrijving);
      assert.equal(second.wijzigingen.oud.omschrijving, 'Tijdens het opschorten');
      assert.equal(second.wijzigingen.oud.opschorting.indicatie, false);
    });

    it('a PATCH waits for a zaak_verlengen in progress, and sees its verlenging', async () => {
      const { zaak } = (await send('POST', '/zaak_registreren', registreren())).body;
      const [extended, patched] = await overlapping(
        () => send('POST', `/zaak_verlengen/${zaak.uuid}`, { zaak: { verlenging: { reden: 'Drukte', duur: 'P14D' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') }, true),
        () => send('PATCH', `/zaken/${zaak.uuid}`, { omschrijving: 'Na het verlengen' }),
      );
      assert.equal(extended.status, 200, extended.text);
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.verlenging, { reden: 'Drukte', duur: 'P14D' });
      const [first, second] = await zaakUpdates(zaak.uuid);
      assert.equal(first.wijzigingen.oud.verlenging.reden, '');
      assert.deepEqual(second.wijzigingen.oud.verlenging, { reden: 'Drukte', duur: 'P14D' });
    });
  });
}
