import assert from 'node:assert/strict';
import { consoleLogger, createRegistry, type Migration, type Plugin } from '../src/index.js';

describe("plugins' migrations", () => {
  const quiet = { storage: 'memory' as const, preset: 'none' as const, logger: consoleLogger('silent') };
  const migration = (name: string): Migration => ({ name, up: async (knex) => void (await knex.raw('select 1')) });
  const withMigrations = (name: string, ...names: string[]): Plugin => ({ name, setup: (api) => api.addMigrations(names.map(migration)) });

  it("refuses a migration named like the core's, which would have left the core's unapplied", async () => {
    await assert.rejects(createRegistry({ ...quiet, plugins: [withMigrations('statistiek', 'core/001_zaak')] }), {
      message: `plugin "statistiek" failed in setup: migration "core/001_zaak" must be named "statistiek/…": a plugin's migrations are named under the plugin's name, apart from the core's and other plugins'`,
    });
  });

  it('refuses a migration name registered twice, and a plugin named like the core that would add the core\'s', async () => {
    await assert.rejects(createRegistry({ ...quiet, plugins: [withMigrations('core', 'core/001_zaak')] }), /plugin name "core" is reserved/);
    await assert.rejects(createRegistry({ ...quiet, plugins: [withMigrations('statistiek', 'statistiek/001_a', 'statistiek/001_a')] }), /migration "statistiek\/001_a" is registered twice/);
  });

  it("applies a plugin's migrations under its name, after the core's", async () => {
    const registry = await createRegistry({ ...quiet, plugins: [withMigrations('statistiek', 'statistiek/001_a')] });
    try {
      const applied = (await registry.services.storage.knex('zaakregister_migrations').orderBy('id').pluck('name')) as string[];
      assert.equal(applied.at(-1), 'statistiek/001_a');
      assert.ok(applied.includes('core/001_zaak'));
    } finally {
      await registry.close();
    }
  });
});
