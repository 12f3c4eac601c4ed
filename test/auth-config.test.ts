import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { configWarnings, loadConfig } from '../src/config.js';
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

  const SECRET = 'a-secret-of-at-least-thirty-two-bytes';

  it('accepts the example configuration and an Autorisaties API with notifications', async () => {
    const example = loadConfig(path.join(ROOT, 'examples/config.example.json'), {});
    assert.equal(example.applications?.length, 2);
    assert.ok(example.clients?.zaakafhandelcomponent);
    const api = {
      url: 'https://autorisaties.example.nl/autorisaties/api/v1',
      ttlSeconds: 0,
      notifications: { url: 'https://notificaties.example.nl/api/v1', callbackUrl: 'https://zaken.example.nl/zaken/api/v1/notificaties/autorisaties', auth: 'Bearer x', subscribe: true },
    };
    assert.deepEqual((await load({ clients: { zac: SECRET }, autorisatiesApi: api, jwt: { leewaySeconds: 60 } }))().autorisatiesApi, api);
  });

  it('names every problem in one pass with its JSON path: schema and cross-key rules together', async () => {
    const both = await load({ clients: { zac: SECRET }, applications: [APPLICATION], autorisatiesApi: { url: 'https://ac.example.nl/api/v1' } });
    assert.throws(both, /\/applications: set applications or autorisatiesApi, not both/);
    const duplicate = await load({ clients: { zac: SECRET }, applications: [APPLICATION, { ...APPLICATION, label: 'Tweede' }] });
    assert.throws(duplicate, /\/applications\/1\/clientIds: client id "zac" is also in application "Zaakafhandelcomponent"/);
    // A schema error (unknown key, empty secret) and a cross-key error (a subscription without callback, no applications) in one report.
    const many = await load({ jwt: { leeway: 5 }, clients: { zac: '' }, autorisatiesApi: { url: 'https://ac.example.nl/api/v1', notifications: { auth: 'x', subscribe: true } } });
    assert.throws(many, (error: Error) => {
      assert.match(error.message, /\/jwt\/leeway: is not a known key/);
      assert.match(error.message, /\/clients\/zac: must NOT have fewer than 1 characters/);
      assert.match(error.message, /\/autorisatiesApi\/notifications\/callbackUrl: is required to subscribe/);
      assert.match(error.message, /\/autorisatiesApi\/notifications\/url: is required to subscribe/);
      return true;
    });
  });

  it('refuses HS256 secrets shorter than 32 bytes unless allowWeakSecrets; development mode accepts them', async () => {
    const short = { clients: { zac: 'geheim' }, applications: [APPLICATION] };
    assert.throws(await load(short), /\/clients\/zac: the secret is 6 bytes; HS256 secrets need at least 32/);
    const allowed = (await load({ ...short, allowWeakSecrets: true }))();
    assert.equal(allowed.clients?.zac, 'geheim');
    assert.deepEqual(configWarnings(allowed), ['"allowWeakSecrets" is on: client secrets shorter than 32 bytes are accepted']);
    assert.equal((await load({ ...short, development: true }))().development, true);
    assert.throws(await load({ ...short, allowWeakSecrets: 'yes' }), /\/allowWeakSecrets: must be boolean/);
  });

  it('serve refuses to start without authentication, naming what is missing', async () => {
    const file = path.join(dir, 'open.json');
    await writeFile(file, JSON.stringify({ database: 'memory', catalog: { type: 'http' } }));
    const serve = spawnTs('src/cli.ts', ['serve', '--config', file, '--port', '0']);
    assert.equal(await exitCode(serve), 1);
    assert.match(serve.output(), /\/clients: is required: the client ids and secrets that may call the registry/);
    assert.match(serve.output(), /\/applications: applications or autorisatiesApi is required/);
  });
});
