import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRegistry } from 'zaakregister';
import { assertProblem, startTestRegistry, TEST_TYPES, zaakInput, type TestRegistry } from 'zaakregister/testing';
import { betrokkeneVerplicht } from '../src/index.js';

describe('betrokkene-verplicht', () => {
  let api: TestRegistry;
  let zaak: { url: string; uuid: string };
  const rol = (betrokkeneType: string, betrokkeneIdentificatie: Record<string, unknown>) => ({
    zaak: zaak.url,
    betrokkeneType,
    betrokkeneIdentificatie,
    roltype: TEST_TYPES.roltypeBehandelaar,
    roltoelichting: 'behandelt',
  });
  const status = () => ({ zaak: zaak.url, statustype: TEST_TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });

  before(async () => {
    api = await startTestRegistry({
      plugins: [betrokkeneVerplicht({ betrokkeneType: 'natuurlijk_persoon' })],
      applications: [
        { clientId: 'behandelaar', all: true },
        { clientId: 'lezer', scopes: ['zaken.lezen'], zaaktypen: [TEST_TYPES.zaaktype] },
        { clientId: 'ander-zaaktype', scopes: ['zaken.lezen'], zaaktypen: [TEST_TYPES.zaaktypeGeheim] },
        { clientId: 'openbaar-lezer', scopes: ['zaken.lezen'], zaaktypen: [TEST_TYPES.zaaktype], maxVertrouwelijkheidaanduiding: 'openbaar' },
      ],
    });
    zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
  });
  after(() => api.close());

  it('refuses a status while the zaak has no betrokkene of the type', async () => {
    assert.equal((await api.request('/rollen', { method: 'POST', json: rol('organisatorische_eenheid', { identificatie: 'OE-1' }) })).status, 201);
    assertProblem(await api.request('/statussen', { method: 'POST', json: status() }), {
      status: 400,
      invalidParams: [{ name: 'zaak', code: 'betrokkene-required' }],
    });
  });

  it('accepts the status once there is one', async () => {
    assert.equal((await api.request('/rollen', { method: 'POST', json: rol('natuurlijk_persoon', { inpBsn: '111222333' }) })).status, 201);
    assert.equal((await api.request('/statussen', { method: 'POST', json: status() })).status, 201);
  });

  it('gives every zaak its aantalBetrokkenen: detail, list and _zoek items, write answers, expanded zaken', async () => {
    const deelzaak = await api.request('/zaken', { method: 'POST', json: zaakInput({ hoofdzaak: zaak.url }) });
    assert.equal(deelzaak.body.aantalBetrokkenen, 0, 'the answer to a write');
    assert.equal((await api.request(`/zaken/${zaak.uuid}`)).body.aantalBetrokkenen, 1);
    const items = [...(await api.request('/zaken')).body.results, ...(await api.request('/zaken/_zoek', { method: 'POST', json: {} })).body.results];
    assert.deepEqual(items.filter((item) => item.uuid === zaak.uuid).map((item) => item.aantalBetrokkenen), [1, 1]);
    const expanded = await api.request(`/zaken/${deelzaak.body.uuid}?expand=hoofdzaak`);
    assert.equal(expanded.body._expand.hoofdzaak.aantalBetrokkenen, 1, expanded.text);
    const documented = api.registry.openapi() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    assert.ok(documented.components.schemas.Zaak.properties.aantalBetrokkenen);
  });

  it('lists the betrokkenen of the type, for clients that may read the zaak', async () => {
    const listed = await api.request(`/zaken/${zaak.uuid}/betrokkenen`, { as: 'lezer' });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.count, 1);
    assert.equal(listed.body.results[0].betrokkeneType, 'natuurlijk_persoon');
    assertProblem(await api.request(`/zaken/${zaak.uuid}/betrokkenen`, { as: 'ander-zaaktype' }), { status: 403 });
    assertProblem(await api.request('/zaken/00000000-0000-4000-8000-000000000000/betrokkenen'), { status: 404, code: 'not_found' });
    assert.ok((api.registry.openapi() as { paths: Record<string, unknown> }).paths['/zaken/{zaak_uuid}/betrokkenen'], 'documented');
  });

  it('counts in the statistics only the zaken the client may read: its zaaktypen, up to its vertrouwelijkheidaanduiding', async () => {
    for (const input of [
      zaakInput({ vertrouwelijkheidaanduiding: 'openbaar' }),
      zaakInput({ vertrouwelijkheidaanduiding: 'geheim' }),
      zaakInput({ zaaktype: TEST_TYPES.zaaktypeGeheim, vertrouwelijkheidaanduiding: 'openbaar' }),
    ]) {
      assert.equal((await api.request('/zaken', { method: 'POST', json: input })).status, 201);
    }
    const all = await api.request('/zaakstatistiek');
    assert.deepEqual(all.body.perZaaktype, [
      { zaaktype: TEST_TYPES.zaaktype, aantal: 4 },
      { zaaktype: TEST_TYPES.zaaktypeGeheim, aantal: 1 },
    ]);
    const limited = await api.request('/zaakstatistiek', { as: 'openbaar-lezer' });
    assert.equal(limited.status, 200, limited.text);
    assert.deepEqual(limited.body.perZaaktype, [{ zaaktype: TEST_TYPES.zaaktype, aantal: 3 }], 'the openbare of its zaaktype: the zaak and deelzaak made before, and one of these');
  });

  it('refuses to load on a zaakregister with an older plugin API', async () => {
    const plugin = { ...betrokkeneVerplicht({ betrokkeneType: 'natuurlijk_persoon' }), apiVersion: '999.0' };
    await assert.rejects(createRegistry({ storage: 'memory', plugins: [plugin] }), /needs zaakregister plugin API 999\.0/);
  });
});
