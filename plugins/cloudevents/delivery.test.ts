import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { decodeJwt } from 'jose';
import { notifications, type Logger } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { startNotificatiesApi, type NotificatiesApiServer } from '../../test/helpers/zgw-servers.js';
import { cloudevents } from './index.js';
import { accept, startTestSink, type Received, type TestSink } from './test-sink.js';

const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 2000, pollIntervalMs: 50, maxAttempts: 6, leaseMs: 6000 };
const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';

/** A logger that keeps its lines. */
function keptLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** Answers `status` (with `headers`) to the first `times` requests, then 204. */
function failing(status: number, times: number, headers: Record<string, string> = {}) {
  let left = times;
  return (_request: Received, res: ServerResponse) => {
    if (left-- > 0) res.writeHead(status, headers).end();
    else res.writeHead(204).end();
  };
}

const idOf = (request: Received) => (JSON.parse(request.body) as { id: string }).id;

for (const backend of BACKENDS) {
  describe(`cloudevents: delivery on ${backend.name}`, () => {
    let api: TestServer;
    let a: TestSink;
    let b: TestSink;
    let elsewhere: TestSink;
    let nrc: NotificatiesApiServer;
    const log = keptLog();
    const post = (path: string, json: unknown) => api.request(path, { method: 'POST', json });
    const outbox = () => api.registry.outbox;
    /** A new zaak and its first status: one zaak-gemuteerd per sink. */
    const oneEvent = async () => {
      const zaak = (await post('/zaken', zaakInput())).body;
      const status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
      assert.equal(status.status, 201, status.text);
      return zaak as { url: string; uuid: string };
    };
    const ofSink = async (sink: string) => (await outbox().list({ kind: 'cloudevents' })).filter((entry) => entry.payload.sink === sink);

    before(async () => {
      [a, b, elsewhere] = await Promise.all([startTestSink(), startTestSink(), startTestSink()]);
      nrc = await startNotificatiesApi();
      nrc.kanalen.push({ url: `${nrc.url}/kanaal/1`, naam: 'zaken', documentatieLink: '', filters: [] });
      api = await startRegistry(await backend.open(), {
        logger: log,
        plugins: [
          cloudevents({ source: SOURCE, sinks: [{ id: 'a', url: a.url }, { id: 'b', url: b.url, types: ['nl.overheid.zaken.*'] }] }),
          notifications({ url: nrc.url, registerKanaal: false }),
        ],
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await Promise.all([a?.close(), b?.close(), elsewhere?.close(), nrc?.close()]);
    });
    beforeEach(async () => {
      a.respond = accept;
      await eventually(async () => assert.equal((await outbox().counts()).pending, 0));
      await api.registry.services.storage.knex('outbox').delete();
      for (const sink of [a, b, elsewhere]) sink.received.length = 0;
      nrc.notificaties.length = 0;
      log.lines.length = 0;
    });

    it('one event id for both sinks and across a retry', async () => {
      a.respond = failing(503, 1);
      await oneEvent();
      await eventually(() => assert.equal(a.events().length + b.events().length, 2));
      assert.equal(a.received.length, 2, 'a 503, then delivered');
      const ids = [...a.received, ...b.received].map(idOf);
      assert.equal(new Set(ids).size, 1, ids.join(', '));
    });

    for (const status of [400, 401, 403, 404, 410, 413, 415, 409]) {
      it(`${status} fails the delivery at once, with a loud log line and its reason in outbox list`, async () => {
        a.respond = failing(status, Infinity);
        await oneEvent();
        const [failed] = await eventually(async () => {
          const rows = (await ofSink('a')).filter((entry) => entry.status === 'failed');
          assert.equal(rows.length, 1);
          return rows;
        });
        assert.equal(failed.attempts, 1);
        assert.match(failed.lastError!, new RegExp(`sink "a" answered ${status}.*not retried`));
        assert.equal(a.received.length, 1);
        assert.ok(log.lines.some((line) => line.startsWith('error cloudevents: event') && line.includes('NOT delivered to sink "a"') && line.includes(`answered ${status}`)), log.lines.join('\n'));
        await eventually(() => assert.equal(b.events().length, 1), 5000);
      });
    }

    it('a redirect is not followed: the delivery fails, the other host gets nothing', async () => {
      a.respond = (_request, res) => res.writeHead(307, { location: elsewhere.url }).end();
      await oneEvent();
      const [failed] = await eventually(async () => {
        const rows = (await ofSink('a')).filter((entry) => entry.status === 'failed');
        assert.equal(rows.length, 1);
        return rows;
      });
      assert.match(failed.lastError!, /answered 307 \(redirects are not followed\)/);
      assert.equal(elsewhere.received.length, 0);
    });

    for (const status of [408, 429, 500, 502, 503]) {
      it(`${status} is retried until delivered`, async () => {
        a.respond = failing(status, 2);
        await oneEvent();
        await eventually(() => assert.equal(a.events().length, 1));
        assert.equal(a.received.length, 3);
        assert.equal(new Set(a.received.map(idOf)).size, 1);
        await eventually(async () => assert.deepEqual(await ofSink('a'), []));
      });
    }

    it('a network error is retried', async () => {
      const gone = await startTestSink();
      await gone.close();
      const other = await startRegistry(await backend.open(), { plugins: [cloudevents({ source: SOURCE, sinks: [{ id: 'gone', url: gone.url }] })], outbox: FAST_OUTBOX });
      try {
        await other.request('/statussen', { method: 'POST', json: { zaak: (await other.request('/zaken', { method: 'POST', json: zaakInput() })).body.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } });
        const [row] = await eventually(async () => {
          const rows = await other.registry.outbox.list();
          assert.ok(rows.length === 1 && rows[0].attempts >= 2 && rows[0].status === 'pending', JSON.stringify(rows));
          return rows;
        });
        assert.match(row.lastError!, /sink "gone" answered network/);
      } finally {
        await other.close();
      }
    });

    it('429 with Retry-After: the next attempt waits that long, not the short backoff', async () => {
      a.respond = failing(429, 1, { 'retry-after': '120' });
      await oneEvent();
      const [waiting] = await eventually(async () => {
        const rows = (await ofSink('a')).filter((entry) => entry.attempts === 1 && entry.lastError);
        assert.equal(rows.length, 1);
        return rows;
      });
      assert.equal(waiting.status, 'pending');
      assert.ok(Date.parse(waiting.nextAttemptAt) - Date.now() > 100_000, `next attempt at ${waiting.nextAttemptAt}`);
      assert.equal(await outbox().retry({ ids: [waiting.id] }), 1);
      await eventually(() => assert.equal(a.events().length, 1));
    });

    it('a dead sink holds back neither another sink nor the classic notifications of the same zaak; order holds per sink', async () => {
      a.respond = failing(503, Infinity);
      const zaak = await oneEvent();
      for (const omschrijving of ['een', 'twee', 'drie']) assert.equal((await api.request(zaak.url, { method: 'PATCH', json: { omschrijving } })).status, 200);
      await eventually(() => assert.equal(b.events().length, 4));
      await eventually(() => assert.equal(nrc.notificaties.length, 5));
      assert.deepEqual(nrc.notificaties.map((n) => `${n.resource} ${n.actie}`), ['zaak create', 'status create', 'zaak partial_update', 'zaak partial_update', 'zaak partial_update']);
      // b got them in commit order: the times of the enqueues never go back.
      const times = b.events().map((event) => Date.parse(event.time!));
      assert.deepEqual(times, [...times].sort((x, y) => x - y));
      assert.equal((await ofSink('a')).length, 4, 'a’s events wait in the outbox');
      assert.equal(a.events().length, 0);
      a.respond = accept;
      await outbox().retry({ kind: 'cloudevents' });
      await eventually(() => assert.equal(a.events().length, 4));
      assert.deepEqual(a.events().map((event) => event.id), b.events().map((event) => event.id), 'the same events, in the same order');
    });

    it('counts enqueued, delivered and failed events per sink and type', async () => {
      a.respond = failing(500, 1);
      await oneEvent();
      await eventually(() => assert.equal(a.events().length, 1));
      const metrics = await (await fetch(`${new URL(api.base).origin}/metrics`)).text();
      const value = (name: string, labels: string) => Number(metrics.match(new RegExp(`${name}\\{${labels}\\} (\\d+)`))?.[1] ?? NaN);
      const type = 'type="nl.overheid.zaken.zaak-gemuteerd"';
      assert.ok(value('zaakregister_cloudevents_enqueued_total', `sink="a",${type}`) >= 1, metrics);
      assert.ok(value('zaakregister_cloudevents_delivered_total', `sink="a",${type}`) >= 1);
      assert.ok(value('zaakregister_cloudevents_failed_total', `sink="a",${type},retried="true"`) >= 1);
    });
  });

  describe(`cloudevents: sink authentication on ${backend.name}`, () => {
    let api: TestServer;
    let bearer: TestSink;
    let oauth: TestSink;
    let tokens: TestSink;
    let on: TestSink;
    let issued = 0;

    before(async () => {
      [bearer, oauth, tokens] = await Promise.all([startTestSink(), startTestSink(), startTestSink('/token')]);
      on = await startTestSink('/api/v1/cloudevents');
      tokens.respond = (_request, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: `token-${++issued}`, token_type: 'Bearer', expires_in: 3600 }));
      api = await startRegistry(await backend.open(), {
        plugins: [
          cloudevents({
            source: SOURCE,
            sinks: [
              { id: 'bearer', url: bearer.url, auth: { bearer: 'vast-token' } },
              { id: 'oauth', url: oauth.url, auth: { oauth2: { tokenUrl: tokens.url, clientId: 'zaakregister', secret: 'geheim', scope: 'events' } } },
              { id: 'on', mode: 'notificaties', url: `http://${on.host}/api/v1`, auth: { clientId: 'zaakregister', secret: 'on-geheim' } },
            ],
          }),
        ],
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await Promise.all([bearer, oauth, tokens, on].map((sink) => sink?.close()));
    });

    it('sends a fixed bearer token, an OAuth2 client-credentials token (fetched once, again after a 401) and a ZGW JWT to Open Notificaties', async () => {
      const write = async () => {
        const zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
        await api.request('/statussen', { method: 'POST', json: { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } });
      };
      await write();
      await write();
      await eventually(() => assert.deepEqual([bearer, oauth, on].map((sink) => sink.events().length), [2, 2, 2]));
      assert.ok(bearer.received.every((r) => r.headers.authorization === 'Bearer vast-token'));
      assert.ok(oauth.received.every((r) => r.headers.authorization === 'Bearer token-1'));
      assert.equal(tokens.received.length, 1, 'the token is reused');
      assert.deepEqual(Object.fromEntries(new URLSearchParams(tokens.received[0].body)), { grant_type: 'client_credentials', client_id: 'zaakregister', client_secret: 'geheim', scope: 'events' });
      assert.equal(on.received[0].path, '/api/v1/cloudevents');
      assert.equal(on.received[0].headers['content-type'], 'application/cloudevents+json; charset=utf-8');
      assert.equal(decodeJwt(on.received[0].headers.authorization!.replace(/^Bearer /, '')).client_id, 'zaakregister');

      oauth.respond = (request, res) => res.writeHead(request.headers.authorization === 'Bearer token-1' ? 401 : 204).end();
      await write();
      await eventually(() => assert.equal(oauth.events().length, 3));
      assert.equal(tokens.received.length, 2, 'a 401 fetched a fresh token');
      assert.equal(oauth.received.at(-1)!.headers.authorization, 'Bearer token-2');
    });
  });
}
