import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP, type CloudEvent } from 'cloudevents';
import type { CatalogClient } from '../../src/plugin-api.js';
import { testCatalog } from '../../test/helpers/registry.js';
import { decodeHeaderValue } from './sink.js';

export const CATALOGUS = 'http://catalogus.test/catalogi/api/v1/catalogussen/71111111-1111-4111-8111-111111111111';

/** The test catalog, its zaaktype in a catalogus (`zaaktype.catalogus` of the events). */
export function catalogWithCatalogus(): CatalogClient {
  const catalog = testCatalog();
  return {
    zaaktype: async (url) => ({ ...(await catalog.zaaktype(url)), catalogus: CATALOGUS }),
    get: (kind, url) => catalog.get(kind, url),
    listFor: (kind, zaaktype) => catalog.listFor(kind, zaaktype),
  };
}

/** One POST a sink received, as sent. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** What it answered, once it has. */
  status?: number;
}

/** A CloudEvents receiver on 127.0.0.1 for the tests: records what it gets, answers as told. */
export interface TestSink {
  url: string;
  host: string;
  received: Received[];
  /** The events it took (answered 2xx), decoded by the CloudEvents SDK after percent-decoding `ce-*` headers. */
  events(): CloudEvent<Record<string, unknown>>[];
  /** How it answers: a status (and headers) per request; default 204. */
  respond: (request: Received, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** The SDK's reading of a received message: `ce-*` header values percent-decoded first (the SDK does not). */
export function toEvent(request: Received): CloudEvent<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers[name] = name.startsWith('ce-') ? decodeHeaderValue(value) : value;
  }
  return HTTP.toEvent({ headers, body: request.body }) as CloudEvent<Record<string, unknown>>;
}

export const accept = (_request: Received, res: ServerResponse) => res.writeHead(204).end();

export async function startTestSink(path = '/events'): Promise<TestSink> {
  const sink: TestSink = {
    url: '',
    host: '',
    received: [],
    events: () => sink.received.filter((r) => r.status !== undefined && r.status >= 200 && r.status < 300).map(toEvent),
    respond: accept,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    res.once('finish', () => (request.status = res.statusCode));
    sink.received.push(request);
    sink.respond(request, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  sink.url = `http://${sink.host}${path}`;
  return sink;
}
