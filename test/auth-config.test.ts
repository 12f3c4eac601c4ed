import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { exitCode, ROOT, spawnTs } from './helpers/spawn.js';

const APPLICATION = {
  clientIds: ['zac'],
  label: 'Zaakafhandelcomponent',
  heeftAlleAutorisaties: false,
  autorisaties: [{ component: 'zrc', zaaktype: 'https://catalogi.example.nl/zaaktypen/1', scopes: ['zaken.lezen'], maxVertrouwelijkheidaanduiding: 'intern' }],
};

describe('authentication configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-auth-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const load = async (config: unknown) => {
    const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(config));
    return () => loadConfig(file, {});
  };

  it('accepts the example configuration and an Autorisaties API with notifications', async () => {
    const example = loadConfig(path.join(ROOT, 'examples/config.example.json'), {});
    assert.equal(example.applications?.length, 2);
    assert.ok(example.clients?.zaakafhandelcomponent);
    const api = {
      url: 'https://autorisaties.example.nl/autorisaties/api/v1',
      ttlSeconds: 0,
      notifications: { url: 'https://notificaties.example.nl/api/v1', callbackUrl: 'https://zaken.example.nl/zaken/api/v1/notificaties/autorisaties', auth: 'Bearer x', subscribe: true },
    };
    assert.deepEqual((await load({ clients: { zac: 'geheim' }, autorisatiesApi: api, jwt: { leewaySeconds: 60 } }))().autorisatiesApi, api);
  });

  it('names every problem: both sources, a duplicate client id, unknown keys, a subscription without callback', async () => {
    const both = await load({ clients: { zac: 'geheim' }, applications: [APPLICATION], autorisatiesApi: { url: 'https://ac.example.nl/api/v1' } });
    assert.throws(both, /applications: Kies applications of autorisatiesApi, niet beide/);
    const duplicate = await load({ applications: [APPLICATION, { ...APPLICATION, label: 'Tweede' }] });
    assert.throws(duplicate, /applications\.1\.clientIds: Client id "zac" staat ook bij applicatie "Zaakafhandelcomponent"\. \(unique\)/);
    const unknown = await load({ jwt: { leeway: 5 }, clients: { zac: '' } });
    assert.throws(unknown, (error: Error) => /jwt\.leeway: .*\(unknown\)/.test(error.message) && /clients\.zac: .*\(blank\)/.test(error.message));
    const subscription = await load({ autorisatiesApi: { url: 'https://ac.example.nl/api/v1', notifications: { auth: 'x', subscribe: true } } });
    assert.throws(subscription, /autorisatiesApi\.notifications\.callbackUrl: .*\(required\)/);
  });

  it('serve refuses to start without authentication', async () => {
    const file = path.join(dir, 'open.json');
    await writeFile(file, JSON.stringify({ database: 'memory', catalog: { type: 'http' } }));
    const serve = spawnTs('src/cli.ts', ['serve', '--config', file, '--port', '0']);
    assert.equal(await exitCode(serve), 1);
    assert.match(serve.output(), /no authentication configured: set "clients" and "applications"/);
  });
});
