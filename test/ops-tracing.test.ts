import assert from 'node:assert/strict';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Plugin } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { startZgwWorld, type ZgwWorld } from './helpers/zgw-world.js';

/** Each write enqueues one delivery to a probe handler. */
const delivering: Plugin = {
  name: 'tracing-probe',
  setup: (api) => api.addDeliveryHandler('tracing-probe', async () => undefined),
  afterWrite: async (ctx) => ctx.registry.outbox.enqueue(ctx.tx!, { kind: 'tracing-probe', target: 'probe', payload: {} }),
};

for (const backend of BACKENDS) {
  describe(`tracing through @opentelemetry/api (${backend.name})`, () => {
    const exporter = new InMemorySpanExporter();
    let server: TestServer;
    let world: ZgwWorld;
    before(async () => {
      // What a host does when it wants traces: register an SDK; the registry itself only uses the API.
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      world = await startZgwWorld();
      server = await startRegistry(await backend.open(), { catalog: undefined, remote: { allowedHosts: world.allowedHosts }, plugins: [delivering], outbox: { dispatch: false } });
    });
    after(async () => {
      await server.close();
      await world.close();
      trace.disable();
      context.disable();
    });

    it('spans the request, its database queries and remote fetches under it, and the outbox delivery', async () => {
      exporter.reset();
      const created = await server.request('/zaken', { method: 'POST', json: zaakInput({ zaaktype: world.zaaktype }), headers: { 'x-request-id': 'traced-1' } });
      assert.equal(created.status, 201, created.text);
      const spans = exporter.getFinishedSpans();
      const request = spans.find((s) => s.kind === SpanKind.SERVER)!;
      assert.equal(request.name, 'POST /zaken/api/v1/zaken');
      assert.deepEqual(
        { route: request.attributes['http.route'], operation: request.attributes['zaakregister.operation'], status: request.attributes['http.response.status_code'], id: request.attributes['zaakregister.request_id'] },
        { route: '/zaken', operation: 'zaak_create', status: 201, id: 'traced-1' },
      );
      const inRequest = (span: ReadableSpan) => span.spanContext().traceId === request.spanContext().traceId;
      const queries = spans.filter((s) => s.name.startsWith('db ') && inRequest(s));
      assert.ok(queries.some((s) => s.name === 'db insert'), spans.map((s) => s.name).join(', '));
      const fetches = spans.filter((s) => s.kind === SpanKind.CLIENT && s.name === `GET ${world.catalog.host}` && inRequest(s));
      assert.ok(fetches.length >= 1);
      assert.equal(fetches[0].attributes['zaakregister.remote.outcome'], 'ok');

      await server.registry.outbox.deliverDue();
      const delivery = exporter.getFinishedSpans().find((s) => s.name === 'outbox delivery')!;
      assert.deepEqual({ kind: delivery.attributes['zaakregister.outbox.kind'], target: delivery.attributes['zaakregister.outbox.target'] }, { kind: 'tracing-probe', target: 'probe' });
    });

    it('stops following the storage\'s queries when the registry closes', async () => {
      const storage = await backend.open();
      const listeners = () => ['query', 'query-response', 'query-error'].map((event) => storage.knex.listenerCount(event));
      const before = listeners();
      const other = await startRegistry(storage);
      assert.deepEqual(listeners(), before.map((n) => n + 1));
      await other.close();
      assert.deepEqual(listeners(), before);
    });
  });
}
