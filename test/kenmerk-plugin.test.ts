import assert from 'node:assert/strict';
import { internKenmerk } from '../examples/kenmerk-plugin.js';
import { startTestRegistry, zaakInput, type TestRegistry } from '../src/testing/index.js';

describe('a field of a plugin on every zaak (examples/kenmerk-plugin)', () => {
  let api: TestRegistry;
  let zaak: Record<string, unknown>;

  before(async () => {
    api = await startTestRegistry({ plugins: [internKenmerk()] });
    zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput({ internKenmerk: 'K-1' }) })).body;
    await api.request('/zaken', { method: 'POST', json: zaakInput({ internKenmerk: 'K-2' }) });
  });
  after(() => api?.close());

  it('is in the answer to the write, the detail (read again from its stored rendering), list and _zoek items', async () => {
    assert.equal(zaak.internKenmerk, 'K-1');
    for (let read = 0; read < 2; read++) assert.equal((await api.request(`/zaken/${zaak.uuid}`)).body.internKenmerk, 'K-1');
    for (const page of [await api.request('/zaken'), await api.request('/zaken/_zoek', { method: 'POST', json: {} })]) {
      assert.deepEqual(page.body.results.map((item: Record<string, unknown>) => item.internKenmerk).sort(), ['K-1', 'K-2']);
    }
  });

  it('is on the zaken expand embeds', async () => {
    const deelzaak = (await api.request('/zaken', { method: 'POST', json: zaakInput({ hoofdzaak: zaak.url }) })).body;
    assert.equal(deelzaak.internKenmerk, null);
    const expanded = await api.request(`/zaken/${deelzaak.uuid}?expand=hoofdzaak`);
    assert.equal(expanded.body._expand.hoofdzaak.internKenmerk, 'K-1', expanded.text);
  });

  it('filters the list, and is documented', async () => {
    const filtered = await api.request('/zaken?internKenmerk=K-2');
    assert.equal(filtered.status, 200, filtered.text);
    assert.deepEqual(filtered.body.results.map((item: Record<string, unknown>) => item.internKenmerk), ['K-2']);
    const document = api.registry.openapi() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    assert.ok(document.components.schemas.Zaak.properties.internKenmerk);
  });

  it('changes with a PATCH, and a remembered ETag no longer matches', async () => {
    const before = await api.request(`/zaken/${zaak.uuid}`);
    const etag = before.headers.get('etag');
    assert.ok(etag, 'the caching plugin tags details');
    assert.equal((await api.request(`/zaken/${zaak.uuid}`, { headers: { 'if-none-match': etag } })).status, 304);
    const patched = await api.request(`/zaken/${zaak.uuid}`, { method: 'PATCH', json: { internKenmerk: 'K-3' } });
    assert.equal(patched.body.internKenmerk, 'K-3', patched.text);
    const after = await api.request(`/zaken/${zaak.uuid}`, { headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200);
    assert.equal(after.body.internKenmerk, 'K-3');
  });
});
