import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { createRegistry, jsonLogger, pinoLogger, signZgwJwt, staticAuthorizations, type Plugin } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { startZgwWorld, type ZgwWorld } from './helpers/zgw-world.js';

const SECRET = 'a-log-test-secret-of-at-least-32-bytes';
const APPLICATION = { clientIds: ['zac'], label: 'ZAC', heeftAlleAutorisaties: true, autorisaties: [] };

/** Every JSON line the registry logs, kept in memory. */
function collectingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pinoLogger(jsonLogger({ level: 'debug', destination: sink })), lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, any>) };
}

/** The top-level keys a JSON line writes more than once. */
function repeatedKeys(line: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  // Keys are the strings followed by a colon at depth 1; strings are skipped whole, so braces in them do not count.
  for (const match of line.matchAll(/"(?:[^"\\]|\\.)*"(\s*:)?|[{}[\]]/g)) {
    const token = match[0];
    if (token === '{' || token === '[') depth++;
    else if (token === '}' || token === ']') depth--;
    else if (match[1] && depth === 1) {
      if (seen.has(token)) repeated.push(token);
      seen.add(token);
    }
  }
  return repeated;
}

/** A plugin that logs the secrets a careless plugin might, and fails on demand. */
const careless: Plugin = {
  name: 'careless',
  onRequest: async (ctx) => {
    ctx.registry.log.info('careless details', { secret: SECRET, credentials: { token: 'a-token-value', password: 'a-password-value' } });
    if (ctx.req.headers['x-fail'] === 'yes') throw new Error('boom for the log test');
  },
};

for (const backend of BACKENDS) {
  describe(`logs and request ids (${backend.name})`, () => {
    let server: TestServer;
    let world: ZgwWorld;
    let log: ReturnType<typeof collectingLogger>;
    let token: string;
    before(async () => {
      world = await startZgwWorld();
      log = collectingLogger();
      token = await signZgwJwt('zac', SECRET);
      server = await startRegistry(await backend.open(), {
        catalog: undefined,
        remote: { allowedHosts: world.allowedHosts },
        authorization: { clients: { zac: SECRET }, source: staticAuthorizations([APPLICATION]) },
        logger: log.logger,
        plugins: [careless],
      });
    });
    after(async () => {
      await server.close();
      await world.close();
      // Nothing of any secret the run used reaches a log line.
      const all = log.lines.join('\n');
      for (const secret of [SECRET, token, token.split('.')[2], 'a-token-value', 'a-password-value']) assert.ok(!all.includes(secret), `a log line holds ${secret.slice(0, 12)}…`);
    });
    const auth = () => ({ authorization: `Bearer ${token}`, 'x-signature': 'a-signature-value' });

    it('writes one access-log line per request: method, route template, status, duration, client and request id', async () => {
      const created = await server.request('/zaken', { method: 'POST', json: zaakInput({ zaaktype: world.zaaktype }), headers: { ...auth(), 'x-request-id': 'client-chosen.id-1' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('x-request-id'), 'client-chosen.id-1');
      // The catalog fetch this request caused carries its id to the remote.
      assert.ok(world.catalog.requests.some((r) => r.requestId === 'client-chosen.id-1'), JSON.stringify(world.catalog.requests.map((r) => r.requestId)));
      const uuid = (created.body.url as string).split('/').pop();
      const read = await server.request(`/zaken/${uuid}`, { headers: auth() });
      assert.equal(read.status, 200);
      const generated = read.headers.get('x-request-id')!;
      assert.match(generated, /^[0-9a-f-]{36}$/);

      const access = log.entries().filter((e) => e.msg === 'request completed');
      const post = access.find((e) => e.reqId === 'client-chosen.id-1')!;
      assert.deepEqual(
        { method: post.req.method, path: post.req.path, route: post.route, operation: post.operation, status: post.res.status, clientId: post.clientId },
        { method: 'POST', path: '/zaken/api/v1/zaken', route: '/zaken', operation: 'zaak_create', status: 201, clientId: 'zac' },
      );
      assert.equal(typeof post.responseTime, 'number');
      const get = access.find((e) => e.reqId === generated)!;
      assert.deepEqual({ route: get.route, operation: get.operation, status: get.res.status }, { route: '/zaken/{uuid}', operation: 'zaak_retrieve', status: 200 });
      // JSON.parse keeps the last of repeated keys; log shippers may not, so each key is written once.
      for (const line of log.lines.filter((l) => l.includes('"request completed"'))) assert.deepEqual(repeatedKeys(line), [], line);
      // The plugin's own line of that request carries the same id, its secrets redacted.
      const careful = log.entries().find((e) => e.msg === 'careless details' && e.reqId === generated)!;
      assert.deepEqual({ secret: careful.secret, token: careful.credentials.token }, { secret: '[redacted]', token: '[redacted]' });
    });

    it('replaces an insane X-Request-Id with its own', async () => {
      for (const sent of ['a b', 'x'.repeat(129), '<script>', 'semi;colon', '']) {
        const response = await server.request('/zaken', { headers: { ...auth(), 'x-request-id': sent } });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('x-request-id')!, /^[0-9a-f]{8}-[0-9a-f-]{27}$/, sent);
      }
    });

    it('puts the request id in a 5xx body and in the error line an operator looks for', async () => {
      const response = await server.request('/zaken', { headers: { ...auth(), 'x-fail': 'yes', 'x-request-id': 'trace-me-500' } });
      assert.equal(response.status, 500);
      assert.equal(response.body.requestId, 'trace-me-500');
      const failure = log.entries().find((e) => e.msg === 'request failed' && e.reqId === 'trace-me-500' && e.error)!;
      assert.match(failure.error, /boom for the log test/);
      assert.equal(failure.instance, response.body.instance);
      // 4xx bodies stay as the standard has them.
      const notFound = await server.request('/zaken/00000000-0000-0000-0000-000000000000', { headers: auth() });
      assert.equal(notFound.status, 404);
      assert.equal(notFound.body.requestId, undefined);
    });
  });
}

describe('access log of the standalone server', () => {
  it('writes one line for each request, also outside the API, but not for the probes', async () => {
    const log = collectingLogger();
    const registry = await createRegistry({ authorization: 'development', logger: log.logger });
    try {
      const server = await registry.listen(0, '127.0.0.1');
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const ids: string[] = [];
      for (const path of ['/nope', '/zaken/api/v1/zaken', '/zaken/api/v1/docs/', '/healthz', '/readyz']) {
        const response = await fetch(base + path);
        await response.arrayBuffer();
        ids.push(response.headers.get('x-request-id') ?? 'none');
      }
      await registry.close();
      const access = log.entries().filter((e) => e.msg === 'request completed');
      assert.deepEqual(
        access.map((e) => [e.req.path, e.res.status, e.reqId]),
        [
          ['/nope', 404, ids[0]],
          ['/zaken/api/v1/zaken', 200, ids[1]],
          ['/zaken/api/v1/docs/', 200, ids[2]],
        ],
      );
    } finally {
      await registry.close();
    }
  });
});

describe('access log through a logger that is not pino', () => {
  /** A plain `Logger` at `level`, keeping what it is given. */
  const plainLogger = (level: 'info' | 'warn') => {
    const lines: { at: string; message: string; details?: Record<string, unknown> }[] = [];
    const write = (at: string) => (message: string, details?: Record<string, unknown>) => void lines.push({ at, message, details });
    return { lines, logger: { level, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') } };
  };

  it('gets the access lines its level keeps, and only those are built', async () => {
    for (const level of ['info', 'warn'] as const) {
      const { lines, logger } = plainLogger(level);
      const server = await startRegistry(await BACKENDS[0].open(), { logger, plugins: [careless] });
      try {
        assert.equal((await server.request('/zaken')).status, 200);
        assert.equal((await server.request('/zaken', { headers: { 'x-fail': 'yes' } })).status, 500);
      } finally {
        await server.close();
      }
      // The access lines (with `res`), not the error line the failure itself writes.
      const access = lines.filter((line) => (line.message === 'request completed' || line.message === 'request failed') && line.details?.res);
      assert.deepEqual(
        access.map((line) => [line.at, line.message, (line.details?.res as { status: number }).status]),
        level === 'info' ? [['info', 'request completed', 200], ['error', 'request failed', 500]] : [['error', 'request failed', 500]],
        level,
      );
    }
  });
});
