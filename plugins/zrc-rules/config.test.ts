import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { configuredPlugins } from '../../src/presets.js';

describe('zrc-rules in the CLI configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-plugins-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  const load = async (config: unknown) => {
    const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, JSON.stringify(config));
    return () => loadConfig(file, {});
  };

  it('is on unless the config turns it off; options configure it', async () => {
    assert.deepEqual(configuredPlugins(undefined).map((p) => p.name), ['zrc-rules', 'archive', 'registry-sync', 'caching', 'expand', 'geo-crs']);
    assert.deepEqual(
      configuredPlugins({ 'zrc-rules': { referenceCacheTtlMs: 0 }, archive: false, 'registry-sync': false, expand: false, 'geo-crs': false }).map((p) => p.name),
      ['zrc-rules', 'caching'],
    );
    assert.deepEqual(configuredPlugins({ 'zrc-rules': false, archive: false, 'registry-sync': false, caching: false, expand: false, 'geo-crs': false }), []);
    const config = (await load({ development: true, plugins: { 'zrc-rules': { referenceCacheTtlMs: 5000 } } }))();
    assert.deepEqual(config.plugins, { 'zrc-rules': { referenceCacheTtlMs: 5000 } });
  });

  it('refuses unknown plugins and options', async () => {
    assert.throws(await load({ development: true, plugins: { 'zrc-regels': true } }), /\/plugins\/zrc-regels: is not a known key/);
    assert.throws(await load({ development: true, plugins: { 'zrc-rules': { cache: 1 } } }), /\/plugins\/zrc-rules\/cache: is not a known key/);
    assert.throws(await load({ development: true, plugins: { 'zrc-rules': { eigenschapSpecificatie: 'weigeren' } } }), /\/plugins\/zrc-rules\/eigenschapSpecificatie/);
  });

  it('takes eigenschapSpecificatie warn or reject', async () => {
    const config = (await load({ development: true, plugins: { 'zrc-rules': { eigenschapSpecificatie: 'reject' } } }))();
    assert.deepEqual(config.plugins, { 'zrc-rules': { eigenschapSpecificatie: 'reject' } });
    assert.deepEqual(configuredPlugins(config.plugins).map((p) => p.name)[0], 'zrc-rules');
  });
});
