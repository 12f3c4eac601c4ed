import assert from 'node:assert/strict';
import { invalidParam, oauth, staticAuthorizations, type Plugin } from '../src/index.js';
import { assertProblem, fakeRemoteRegistry, mintZgwJwt, startTestRegistry, testApplicatie, testIssuer, TEST_TYPES, zaakInput, type TestRegistry } from '../src/testing/index.js';

describe('zaakregister/testing', () => {
  let api: TestRegistry;
  const needsOmschrijving: Plugin = {
    name: 'needs-omschrijving',
    validate(ctx) {
      if (ctx.operation.id === 'zaak_create' && !ctx.data?.omschrijving) throw invalidParam('omschrijving', 'required', 'Verplicht.');
    },
  };

  before(async () => {
    api = await startTestRegistry({
      plugins: [needsOmschrijving],
      applications: [
        { clientId: 'alles', all: true },
        { clientId: 'lezer', scopes: ['zaken.lezen'], zaaktypen: [TEST_TYPES.zaaktype], maxVertrouwelijkheidaanduiding: 'openbaar' },
      ],
    });
  });
  after(() => api?.close());

  it('serves a registry with the test catalog, authenticated as the first application', async () => {
    const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'Test' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.zaaktype, TEST_TYPES.zaaktype);
    const read = await api.request(new URL(created.body.url).pathname.replace(/^.*\/zaken\/api\/v1/, ''), { as: 'lezer' });
    assert.equal(read.status, 200);
  });

  it('mints tokens whose scopes and zaaktypen the registry enforces', async () => {
    assertProblem(await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'x' }), as: 'lezer' }), { status: 403, code: 'permission_denied' });
    assertProblem(await api.request('/zaken', { as: null }), { status: 401, code: 'not_authenticated' });
    const unknown = await api.request('/zaken', { headers: { authorization: `Bearer ${await mintZgwJwt('onbekend')}` } });
    assertProblem(unknown, { status: 401 });
  });

  it('asserts problems with their invalid params, and fails on a different one', async () => {
    const refused = await api.request('/zaken', { method: 'POST', json: zaakInput() });
    assertProblem(refused, { status: 400, code: 'invalid', invalidParams: [{ name: 'omschrijving', code: 'required' }] });
    assert.throws(() => assertProblem(refused, { status: 400, invalidParams: [{ name: 'toelichting', code: 'required' }] }), assert.AssertionError);
    assert.throws(() => assertProblem(refused, { status: 403 }), assert.AssertionError);
  });

  it('fake remote registries record what they receive', async () => {
    const remote = await fakeRemoteRegistry((request) => ({ status: request.method === 'POST' ? 201 : 404, body: { ontvangen: request.body } }));
    try {
      const waiting = remote.received(2);
      const answer = await fetch(`${remote.origin}/api/v1/notificaties`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kanaal":"zaken"}' });
      assert.deepEqual(await answer.json(), { ontvangen: { kanaal: 'zaken' } });
      assert.equal((await fetch(`${remote.origin}/elders`)).status, 404);
      const received = await waiting;
      assert.deepEqual(received.map((r) => [r.method, r.path, r.body]), [['POST', '/api/v1/notificaties', { kanaal: 'zaken' }], ['GET', '/elders', undefined]]);
      await assert.rejects(remote.received(3, 50), /received 2 of 3 requests/);
    } finally {
      await remote.close();
    }
  });

  it('an OAuth test issuer mints access tokens the oauth plugin accepts, with their scopes', async () => {
    const issuer = await testIssuer();
    const audience = 'https://zaken.test/zaken/api/v1';
    const withOauth = await startTestRegistry({
      plugins: [oauth({ issuers: [issuer.issuer], audience, authorizations: staticAuthorizations([testApplicatie({ clientId: 'oauth-app', scopes: ['zaken.lezen'] })]) })],
    });
    try {
      const bearer = async (scopes: string[], claims?: Record<string, unknown>) => ({ authorization: `Bearer ${await issuer.mint({ clientId: 'oauth-app', scopes, audience, claims })}` });
      assert.equal((await withOauth.request('/zaken', { headers: await bearer(['zaken.lezen']) })).status, 200);
      assertProblem(await withOauth.request('/zaken', { method: 'POST', json: zaakInput(), headers: await bearer(['zaken.lezen']) }), { status: 403, code: 'insufficient-scope' });
      assertProblem(await withOauth.request('/zaken', { headers: await bearer(['zaken.lezen'], { aud: 'https://elders.test' }) }), { status: 401, code: 'invalid-token' });
    } finally {
      await withOauth.close();
      await issuer.close();
    }
  });
});
