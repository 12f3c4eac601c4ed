import type { Knex } from 'knex';
import type { Migration, Storage } from './types.js';

/** Where knex records the applied migrations (readiness compares it with the registered ones). */
export const MIGRATIONS_TABLE = 'zaakregister_migrations';

/** Storage on a knex instance with the `pg` client, shared by the PostgreSQL and PGlite adapters. */
export function knexStorage(options: {
  kind: string;
  description: string;
  knex: Knex;
  onClose?: () => Promise<void>;
}): Storage {
  const { knex } = options;
  return {
    kind: options.kind,
    description: options.description,
    knex,
    async migrate(migrations) {
      const byName = new Map(migrations.map((m) => [m.name, m]));
      const source: Knex.MigrationSource<Migration> = {
        getMigrations: async () => [...migrations],
        getMigrationName: (m) => m.name,
        getMigration: async (m) => {
          const migration = byName.get(m.name) ?? m;
          return { up: (k: Knex) => migration.up(k), down: (k: Knex) => (migration.down ? migration.down(k) : Promise.resolve()) };
        },
      };
      const [, applied] = (await knex.migrate.latest({
        migrationSource: source,
        tableName: MIGRATIONS_TABLE,
        // A plugin that was removed leaves its rows behind; that is not corruption.
        disableMigrationsListValidation: true,
      })) as [number, string[]];
      return applied;
    },
    transaction: (work) => knex.transaction(work),
    async close() {
      await knex.destroy();
      await options.onClose?.();
    },
  };
}
