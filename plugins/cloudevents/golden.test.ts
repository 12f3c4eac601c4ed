import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { CloudEvent, HTTP } from 'cloudevents';
import { handelingen } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { normalized, parts, registreren } from '../../test/helpers/handelingen.js';
import { TYPES, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { cloudevents } from './index.js';
import { decodeHeaderValue, encodeEvent, encodeHeaderValue } from './sink.js';
import { catalogWithCatalogus, startTestSink, type TestSink } from './test-sink.js';

const GOLDEN = new URL('./fixtures/golden-events.json', import.meta.url);
const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';

describe('cloudevents: binary-mode header encoding', () => {
  it('percent-encodes space, quote, percent and non-ASCII as UTF-8 with uppercase hex, and reads it back', () => {
    assert.equal(encodeHeaderValue('Euro € 😀'), 'Euro%20%E2%82%AC%20%F0%9F%98%80');
    assert.equal(encodeHeaderValue('a"b%c'), 'a%22b%25c');
    assert.equal(decodeHeaderValue('Euro%20%e2%82%ac%20%F0%9F%98%80'), 'Euro € 😀', 'lowercase hex is accepted');
    assert.throws(() => decodeHeaderValue('%C3%28'), 'invalid UTF-8 is refused');
  });

  it('round-trips an attribute through the SDK in binary mode', () => {
    const event = { specversion: '1.0', id: 'e-1', source: SOURCE, type: 'nl.overheid.zaken.zaak-gemuteerd', subject: 'Euro € 😀', time: '2026-11-27T10:00:00.000Z', datacontenttype: 'application/json', data: { a: 1 } };
    const message = encodeEvent(event, 'binary');
    assert.equal(message.headers['ce-subject'], 'Euro%20%E2%82%AC%20%F0%9F%98%80');
    assert.equal(message.headers['content-type'], 'application/json');
    assert.ok(!('ce-datacontenttype' in message.headers));
    const headers = Object.fromEntries(Object.entries(message.headers).map(([name, value]) => [name, name.startsWith('ce-') ? decodeHeaderValue(value) : value]));
    const read = HTTP.toEvent({ headers, body: message.body }) as CloudEvent;
    assert.equal(read.subject, 'Euro € 😀');
    assert.deepEqual(read.data, { a: 1 });
  });
});

for (const backend of BACKENDS) {
  describe(`cloudevents: golden events, both families, both content modes, on ${backend.name}`, () => {
    let api: TestServer;
    let structured: TestSink;
    let binary: TestSink;

    before(async () => {
      structured = await startTestSink();
      binary = await startTestSink();
      api = await startRegistry(await backend.open(), {
        catalog: catalogWithCatalogus(),
        plugins: [
          cloudevents({
            source: SOURCE,
            profile: ['mijn-overheid', 'nrc'],
            laatstGeopend: true,
            sinks: [
              { id: 'structured', url: structured.url },
              { id: 'binary', url: binary.url, contentMode: 'binary' },
            ],
          }),
          handelingen(),
        ],
        outbox: { pollIntervalMs: 50 },
      });
    });
    after(async () => {
      await api?.close();
      await structured?.close();
      await binary?.close();
    });

    it('every event type is as the golden file has it, valid for the SDK, the same in both content modes', async () => {
      const post = (path: string, json: unknown) => api.request(path, { method: 'POST', json });
      const registered = await post('/zaak_registreren', registreren());
      assert.equal(registered.status, 201, registered.text);
      const zaak = registered.body.zaak;
      const steps: [string, unknown][] = [
        [`/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true, reden: 'Wacht' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') }],
        [`/zaak_verlengen/${zaak.uuid}`, { zaak: { verlenging: { reden: 'Drukte', duur: 'P14D' } }, status: parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z') }],
        [`/zaak_bijwerken/${zaak.uuid}`, { zaak: { omschrijving: 'bijgewerkt' }, status: parts.status(TYPES.statustypeStart, '2024-03-04T10:00:00Z') }],
        [`/zaak_afsluiten/${zaak.uuid}`, { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() }],
      ];
      for (const [path, body] of steps) assert.equal((await post(path, body)).status, 200, path);
      assert.equal((await api.request(zaak.url, { method: 'PATCH', json: { laatstGeopend: '2024-03-06T08:00:00Z' } })).status, 200);
      assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
      await eventually(async () => assert.equal((await api.registry.outbox.counts()).pending, 0));

      const [fromStructured, fromBinary] = [structured, binary].map((sink) => sink.events());
      for (const event of [...fromStructured, ...fromBinary]) assert.equal(event.validate(), true);
      assert.ok(structured.received.every((r) => r.headers['content-type'] === 'application/cloudevents+json; charset=utf-8'));
      assert.ok(binary.received.every((r) => r.headers['content-type'] === 'application/json' && typeof r.headers['ce-id'] === 'string'));
      const plain = (events: CloudEvent<Record<string, unknown>>[]) => events.map((event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>);
      assert.deepEqual(plain(fromBinary), plain(fromStructured), 'both content modes carry the same events');
      const uuids = new Map<string, string>();
      const golden = normalized(plain(fromStructured), api.base, uuids);
      if (process.env.UPDATE_GOLDEN) writeFileSync(GOLDEN, `${JSON.stringify(golden, null, 2)}\n`);
      assert.deepEqual(golden, JSON.parse(readFileSync(GOLDEN, 'utf8')));
      // Every type of both families is in it.
      const types = new Set((golden as { type: string }[]).map((event) => event.type));
      for (const type of ['gemuteerd', 'geopend', 'verwijderd', 'geregistreerd', 'opgeschort', 'verlengd', 'bijgewerkt', 'afgesloten']) assert.ok(types.has(`nl.overheid.zaken.zaak-${type}`), type);
      for (const type of ['zaak.create', 'zaak.partial_update', 'zaak.destroy', 'status.create', 'rol.create', 'zaakobject.create', 'resultaat.create']) assert.ok(types.has(`nl.overheid.zaken.${type}`), type);
    });
  });
}
