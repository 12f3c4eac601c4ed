import assert from 'node:assert/strict';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { cloudevents } from './index.js';
import { startTestSink, type TestSink } from './test-sink.js';

for (const backend of BACKENDS) {
  describe(`cloudevents: the write's trace in traceparent on ${backend.name}`, () => {
    const exporter = new InMemorySpanExporter();
    let api: TestServer;
    let sink: TestSink;
    before(async () => {
      // What a host does when it wants traces: register an SDK; the registry itself only uses the API.
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      sink = await startTestSink();
      api = await startRegistry(await backend.open(), {
        plugins: [cloudevents({ source: 'urn:nld:oin:00000001823288444000:systeem:zaakregister', dataref: 'path', sinks: [{ id: 'portaal', url: sink.url, contentMode: 'binary' }] })],
        outbox: { pollIntervalMs: 50 },
      });
    });
    after(async () => {
      await api?.close();
      await sink?.close();
      trace.disable();
      context.disable();
    });

    it('an event carries the trace context of the request that wrote it (and, with dataref: path, the zaak\'s path)', async () => {
      const zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
      exporter.reset();
      const status = await api.request('/statussen', { method: 'POST', json: { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } });
      assert.equal(status.status, 201, status.text);
      const [event] = await eventually(() => {
        const events = sink.events();
        assert.equal(events.length, 1);
        return events;
      });
      const request = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER)!;
      const { traceId, spanId } = request.spanContext();
      assert.equal(event.traceparent, `00-${traceId}-${spanId}-01`);
      assert.equal(sink.received[0].headers['ce-traceparent'], `00-${traceId}-${spanId}-01`);
      assert.equal(event.dataref, new URL(zaak.url).pathname);
      assert.match(String(event.dataref), /^\/zaken\/api\/v1\/zaken\/[0-9a-f-]{36}$/);
    });
  });
}
