import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { loadContract } from '../scripts/contract.js';
import { pgliteStorage } from '../src/index.js';
import { startRegistry, type TestServer } from './helpers/registry.js';

const CONTRACT = loadContract();

describe('API design rules over HTTP', () => {
  let api: TestServer;
  before(async () => {
    api = await startRegistry(await pgliteStorage({ dataDir: 'memory' }));
  });
  after(async () => api?.close());

  it('sends API-Version and the security headers on every response, errors included', async () => {
    for (const [path, method, status] of [['/zaken', 'GET', 200], ['/zaken/', 'GET', 404], ['/nergens', 'GET', 404], ['/zaken', 'DELETE', 405]] as const) {
      const response = await api.request(path, { method });
      assert.equal(response.status, status, `${method} ${path}`);
      assert.equal(response.headers.get('api-version'), '1.8.0', `${method} ${path}`);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.equal(response.headers.get('content-security-policy'), "frame-ancestors 'none'");
      assert.ok(response.headers.get('strict-transport-security'));
      if (status >= 400) assert.equal(response.headers.get('content-type'), 'application/problem+json');
    }
  });

  it('answers a trailing slash with 404, never a redirect', async () => {
    const response = await fetch(`${api.base}/zaken/`, { redirect: 'manual' });
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('location'), null);
  });

  it('answers an unsupported method with 405 and Allow, OPTIONS with the allowed methods', async () => {
    const put = await api.request('/zaken', { method: 'PUT', json: {} });
    assert.equal(put.status, 405);
    assert.equal(put.body.code, 'method_not_allowed');
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    const detail = await api.request('/zaken/00000000-0000-4000-8000-000000000000', { method: 'POST', json: {} });
    assert.equal(detail.status, 405);
    assert.equal(detail.headers.get('allow'), 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    const options = await api.request('/zaken', { method: 'OPTIONS' });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
    const search = await api.request('/zaken/_zoek');
    assert.equal(search.status, 405);
  });

  it('serves the OpenAPI document as JSON and YAML, identical, public and open to all origins', async () => {
    const json = await api.request('/openapi.json');
    const yaml = await api.request('/openapi.yaml');
    assert.equal(json.status, 200);
    assert.equal(yaml.status, 200);
    assert.equal(json.headers.get('access-control-allow-origin'), '*');
    assert.equal(yaml.headers.get('access-control-allow-origin'), '*');
    assert.deepEqual(parse(yaml.text), json.body);
    assert.equal(json.body.info.version, json.headers.get('api-version'));
    assert.match(json.body.info.version, /^\d+\.\d+\.\d+/);
    assert.equal(json.body.servers[0].url, api.base);
  });

  it('documents every operation of the Zaken API 1.8.0 contract, with its filters, bodies and API-Version header', async () => {
    const document = (await api.request('/openapi.json')).body;
    const operationIds = (paths: object) => Object.values(paths).flatMap((item: any) => Object.values(item).map((o: any) => o.operationId)).filter(Boolean).sort();
    assert.deepEqual(operationIds(document.paths), operationIds(CONTRACT.paths));
    for (const [path, item] of Object.entries(CONTRACT.paths) as [string, any][]) {
      for (const [method, operation] of Object.entries(item) as [string, any][]) {
        if (!operation.operationId || method === 'head') continue;
        const served = (document.paths[path]?.[method]?.parameters ?? []).map((p: any) => p.name);
        const filters = (operation.parameters ?? []).filter((p: any) => p.in === 'query' && !['expand', 'page'].includes(p.name)).map((p: any) => p.name);
        for (const name of filters) assert.ok(served.includes(name), `${operation.operationId} accepts ${name}`);
      }
    }
    const listParameters = document.paths['/zaken'].get.parameters.map((p: any) => p.name);
    for (const name of ['identificatie', 'bronorganisatie__in', 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn', 'maximaleVertrouwelijkheidaanduiding', 'ordering', 'page', 'pageSize']) {
      assert.ok(listParameters.includes(name), name);
    }
    for (const item of Object.values(document.paths) as any[]) {
      for (const operation of Object.values(item) as any[]) {
        for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
          assert.ok(response.headers?.['API-Version'], `${operation.operationId} ${status} documents API-Version`);
        }
      }
    }
    assert.equal(document.components.schemas.Zaak.properties.identificatie.maxLength, 40);
    assert.equal(document.paths['/zaken'].post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/Zaak');
  });
});
