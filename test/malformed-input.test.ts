import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { consoleLogger, type Logger, type Plugin } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/** A request with exactly these bytes and headers (fetch would normalize a path or refuse some headers). */
function raw(base: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}) {
  const url = new URL(base);
  return new Promise<{ status: number; contentType: string; body: any }>((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: options.method ?? 'GET', path: url.pathname + path, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = String(res.headers['content-type']).includes('json');
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: json && text ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function assertProblem(response: { status: number; contentType: string; body: any }, status: number, code: string, label: string): void {
  assert.equal(response.status, status, `${label}: ${JSON.stringify(response.body)}`);
  assert.equal(response.contentType, 'application/problem+json', label);
  assert.equal(response.body.code, code, label);
  assert.equal(response.body.status, status, label);
}

/** Nests `inner` `levels` deep in objects: { a: { a: ... inner } }. */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

for (const backend of BACKENDS) {
  describe(`Malformed input is a 4xx problem, never a 500, on ${backend.name}`, () => {
    let api: TestServer;
    let zaak: any;
    before(async () => {
      api = await startRegistry(await backend.open());
      zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
    });
    after(async () => api?.close());

    it('answers a malformed percent-encoding in a path parameter with a 400 problem', async () => {
      for (const path of ['/zaken/%zz', '/rollen/%', `/zaken/${'%E0%A4%A'}`, '/zaken/%zz/zaakeigenschappen', `/zaken/${zaak.uuid}/audittrail/%`]) {
        assertProblem(await raw(api.base, path), 400, 'parse_error', path);
      }
    });

    it('keeps the status of body-parser errors: an unsupported charset or content encoding is a 415, a body that is not gzip a 400', async () => {
      const body = JSON.stringify(zaakInput());
      const json = { 'content-type': 'application/json' };
      assertProblem(await raw(api.base, '/zaken', { method: 'POST', headers: { 'content-type': 'application/json; charset=latin1' }, body }), 415, 'unsupported_media_type', 'charset');
      assertProblem(await raw(api.base, '/zaken', { method: 'POST', headers: { ...json, 'content-encoding': 'x' }, body }), 415, 'unsupported_media_type', 'encoding x');
      assertProblem(await raw(api.base, '/zaken', { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body }), 400, 'parse_error', 'not gzip');
      // A body that is gzip after all is read.
      const gzipped = await raw(api.base, '/zaken', { method: 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(body) });
      assert.equal(gzipped.status, 201, JSON.stringify(gzipped.body));
    });

    it('refuses a NUL in any string, body or query, naming the field', async () => {
      const cases: [string, string, unknown, string][] = [
        ['POST', '/zaken', zaakInput({ omschrijving: 'a\u0000b' }), 'omschrijving'],
        ['POST', '/zaken', zaakInput({ kenmerken: [{ kenmerk: 'k\u0000', bron: 'b' }] }), 'kenmerken.0.kenmerk'],
        ['PATCH', `/zaken/${zaak.uuid}`, { toelichting: '\u0000' }, 'toelichting'],
        ['POST', `/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'x\u0000y' }, 'waarde'],
        [
          'POST',
          '/zaakobjecten',
          { zaak: zaak.url, objectType: 'overige', objectTypeOverige: 'iets', objectIdentificatie: { overigeData: { 'sleutel\u0000': 1 } } },
          'objectIdentificatie.overigeData.sleutel\u0000',
        ],
        ['POST', '/zaken/_zoek', { identificatie: 'a\u0000b' }, 'identificatie'],
      ];
      for (const [method, path, json, field] of cases) {
        const response = await api.request(path, { method, json });
        assert.equal(response.status, 400, `${method} ${path}: ${response.text}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        assert.equal(response.body.code, 'invalid');
        assert.deepEqual(
          response.body.invalidParams.map((p: any) => [p.name, p.code]),
          [[field, 'null_characters_not_allowed']],
          `${method} ${path}`,
        );
      }
      for (const query of ['identificatie=a%00b', 'zaaktype=http%3A%2F%2Fx%00']) {
        const response = await api.request(`/zaken?${query}`);
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        assert.equal(response.body.invalidParams[0].code, 'null_characters_not_allowed');
        assert.equal(response.body.invalidParams[0].name, query.split('=')[0]);
      }
      const rollen = await api.request('/rollen?betrokkene=%00');
      assert.equal(rollen.status, 400, rollen.text);
      assert.equal((await api.request(`/zaken/${zaak.uuid}`)).body.toelichting, '', 'nothing was stored');
    });

    it('refuses a lone surrogate in any string, as it cannot be stored as UTF-8 without changing it', async () => {
      // Escapes in the JSON text: a lone surrogate cannot be written in UTF-8 bytes.
      const body = JSON.stringify(zaakInput()).replace(/}$/, ', "omschrijving": "a\\ud800b", "toelichting": "\\udc00"}');
      const response = await api.request('/zaken', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(
        response.body.invalidParams.map((p: any) => [p.name, p.code]),
        [
          ['omschrijving', 'surrogate_characters_not_allowed'],
          ['toelichting', 'surrogate_characters_not_allowed'],
        ],
      );
      const query = await api.request('/zaken?identificatie=%ED%A0%80');
      // Percent-encoded bytes of a surrogate are no UTF-8: decoded to U+FFFD, an ordinary character.
      assert.equal(query.status, 200, query.text);
      // A pair is one character and fine.
      const pair = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'ok \ud83d\ude00' }) });
      assert.equal(pair.status, 201, pair.text);
      assert.equal(pair.body.omschrijving, 'ok \ud83d\ude00');
    });

    it('refuses the year 0000, which PostgreSQL has no dates for, in filters and fields', async () => {
      for (const query of ['startdatum=0000-01-01', 'einddatumGepland__lt=0000-12-31']) {
        const response = await api.request(`/zaken?${query}`);
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [[query.split('=')[0], 'invalid']]);
      }
      const zaak = await api.request('/zaken', { method: 'POST', json: zaakInput({ startdatum: '0000-03-01' }) });
      assert.equal(zaak.status, 400, zaak.text);
      assert.equal(zaak.body.invalidParams[0].name, 'startdatum');
      const status = await api.request('/statussen', { method: 'POST', json: { zaak: zaak.body.url ?? '', statustype: TYPES.statustypeStart, datumStatusGezet: '0000-03-01T10:00:00Z' } });
      assert.equal(status.status, 400, status.text);
      assert.ok(status.body.invalidParams.some((p: any) => p.name === 'datumStatusGezet'), status.text);
    });

    it('answers a path outside the API on its own server with a problem too', async () => {
      const outside = await raw(api.base.replace(/\/zaken\/api\/v1$/, ''), '/zaken/api/x', { method: 'PATCH' });
      assertProblem(outside, 404, 'not_found', 'outside the base path');
    });

    it('refuses JSON nested deeper than the documented limit before walking it, and accepts it up to the limit', async () => {
      const zaakobject = (overigeData: unknown) => ({ zaak: zaak.url, objectType: 'overige', objectTypeOverige: 'iets', objectIdentificatie: { overigeData } });
      // Written out: JSON.stringify itself cannot go 6,000 levels deep.
      const text = JSON.stringify(zaakobject('DEEP')).replace('"DEEP"', `${'{"a":'.repeat(6000)}1${'}'.repeat(6000)}`);
      const deep = await api.request('/zaakobjecten', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      assert.equal(deep.status, 400, deep.text);
      assert.equal(deep.headers.get('content-type'), 'application/problem+json');
      assert.equal(deep.body.code, 'invalid');
      assert.equal(deep.body.invalidParams[0].code, 'max_depth');
      assert.match(deep.body.invalidParams[0].name, /^objectIdentificatie\.overigeData(\.a)+$/);
      // The body and objectIdentificatie are two of the 32 levels: overigeData may nest 30 more.
      const deepest = await api.request('/zaakobjecten', { method: 'POST', json: zaakobject(nested(30)) });
      assert.equal(deepest.status, 201, deepest.text);
      const over = await api.request('/zaakobjecten', { method: 'POST', json: zaakobject(nested(31)) });
      assert.equal(over.status, 400, over.text);
      const arrays = await api.request('/zaken/_zoek', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"zaaktype__in":${'['.repeat(6000)}${']'.repeat(6000)}}` });
      assert.equal(arrays.status, 400, arrays.text);
      assert.equal(arrays.body.invalidParams[0].code, 'max_depth');
    });
  });
}

describe('An error nobody foresaw', () => {
  it('is a problem+json 500 with the request id, logged with its stack and that id', async () => {
    const logged: { message: string; details?: Record<string, unknown> }[] = [];
    const silent = consoleLogger('silent');
    const logger: Logger = { ...silent, error: (message, details) => void logged.push({ message, details }) };
    const failing: Plugin = {
      name: 'failing',
      validate(ctx) {
        if (ctx.operation.id === 'zaak_create') throw new TypeError('an unforeseen failure');
      },
    };
    const api = await startRegistry(await BACKENDS[0].open(), { plugins: [failing], logger });
    try {
      const response = await api.request('/zaken', { method: 'POST', json: zaakInput() });
      assert.equal(response.status, 500);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(response.body.code, 'error');
      assert.match(response.body.instance, /^urn:uuid:[0-9a-f-]{36}$/);
      assert.doesNotMatch(response.text, /unforeseen/, 'nothing of the error reaches the client');
      const entry = logged.find((l) => l.details?.instance === response.body.instance);
      assert.ok(entry, `logged with the request id: ${JSON.stringify(logged)}`);
      assert.match(String(entry.details!.error), /TypeError: an unforeseen failure\n\s+at .*malformed-input\.test\.ts/, 'the stack of the error itself');
    } finally {
      await api.close();
    }
  });
});
