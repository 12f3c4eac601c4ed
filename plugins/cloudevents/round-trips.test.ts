import assert from 'node:assert/strict';
import { notifications } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { roundTripsDuring } from '../../test/helpers/statements.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { cloudevents, type CloudEventsOptions } from './index.js';
import { catalogWithCatalogus, startTestSink, type TestSink } from './test-sink.js';

const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';

/**
 * What the plugin costs a write: its outbox rows join the classic notification's in one insert and
 * its `laatstGemuteerd` travels with the next statement, so `POST /zaken` and `POST /statussen` take
 * the round trips they take with the classic notifications alone.
 */
for (const backend of BACKENDS) {
  describe(`cloudevents: round trips of a write on ${backend.name}`, () => {
    let sink: TestSink;
    const setups: Record<'classic' | 'events' | 'laatst', TestServer> = {} as never;
    /** The request's own statements, not the outbox dispatcher's. */
    const own = (sql: string) => !/(from|update|analyze) "?outbox"?\b|outbox_dispatch|synchronous_commit/i.test(sql);
    const post = async (api: TestServer, path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body as { url: string };
    };
    /** The round trips of a status write, the fewest of five: once its statements are prepared on the connection. */
    const statusWrite = async (api: TestServer) => {
      const runs: string[][] = [];
      for (let i = 0; i < 5; i++) {
        const zaak = await post(api, '/zaken', zaakInput());
        runs.push(await roundTripsDuring(() => post(api, '/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-02T10:00:00Z' }), own));
      }
      return runs.reduce((best, run) => (run.length < best.length ? run : best));
    };
    const zaakWrite = async (api: TestServer) => {
      const runs: string[][] = [];
      for (let i = 0; i < 5; i++) runs.push(await roundTripsDuring(() => post(api, '/zaken', zaakInput()), own));
      return runs.reduce((best, run) => (run.length < best.length ? run : best));
    };
    const statementsOf = (sent: string[]) => sent.flatMap((text) => text.split(/\n;\n/));

    before(async function () {
      this.timeout(240_000); // three registries, each migrating its database
      sink = await startTestSink();
      const start = async (events?: Omit<CloudEventsOptions, 'source' | 'sinks'>) =>
        startRegistry(await backend.open(), {
          preset: 'none',
          catalog: catalogWithCatalogus(),
          plugins: [notifications({ url: sink.url, registerKanaal: false }), ...(events ? [cloudevents({ source: SOURCE, sinks: [{ id: 'portaal', url: sink.url }], ...events })] : [])],
          outbox: { dispatch: false },
        });
      setups.classic = await start();
      setups.events = await start({ profile: 'mijn-overheid' });
      setups.laatst = await start({ profile: 'mijn-overheid', laatstGeopend: true });
    });
    after(async () => {
      await Promise.all(Object.values(setups).map((api) => api.close()));
      await sink?.close();
    });

    it('adds no round trip and no statement to a status write: its event row travels in the notification\'s insert', async () => {
      const classic = await statusWrite(setups.classic);
      const events = await statusWrite(setups.events);
      assert.equal(events.length, classic.length, `classic:\n${classic.join('\n---\n')}\n\nwith cloudevents:\n${events.join('\n---\n')}`);
      assert.equal(statementsOf(events).length, statementsOf(classic).length, events.join('\n---\n'));
      const outbox = statementsOf(events).filter((sql) => /^insert into "outbox"/.test(sql));
      assert.equal(outbox.length, 1, outbox.join('\n---\n'));
      assert.match(outbox[0], /values \('notifications', .*\), \('cloudevents', .*"type":"nl\.overheid\.zaken\.zaak-gemuteerd"/s);
    });

    it('with laatstGeopend, adds to a status write only the laatstGemuteerd update, in no round trip of its own', async () => {
      const classic = await statusWrite(setups.classic);
      const laatst = await statusWrite(setups.laatst);
      assert.equal(laatst.length, classic.length, `classic:\n${classic.join('\n---\n')}\n\nwith laatstGeopend:\n${laatst.join('\n---\n')}`);
      const added = statementsOf(laatst).length - statementsOf(classic).length;
      assert.equal(added, 1, laatst.join('\n---\n'));
      assert.ok(statementsOf(laatst).some((sql) => /^update "zaak" set "laatst_gemuteerd" = CURRENT_TIMESTAMP/.test(sql)), laatst.join('\n---\n'));
    });

    it('adds no round trip and no statement to a zaak create, which gives no event', async () => {
      const classic = await zaakWrite(setups.classic);
      const events = await zaakWrite(setups.events);
      assert.equal(events.length, classic.length, `classic:\n${classic.join('\n---\n')}\n\nwith cloudevents:\n${events.join('\n---\n')}`);
      assert.equal(statementsOf(events).length, statementsOf(classic).length, events.join('\n---\n'));
    });
  });
}
