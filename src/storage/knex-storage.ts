import type { Knex } from 'knex';
import type { Migration, Storage } from './types.js';
import type { ReplicaRouting } from './types.js';

/** Where knex records the applied migrations (readiness compares it with the registered ones). */
export const MIGRATIONS_TABLE = 'zaakregister_migrations';

/** Storage on a knex instance with the `pg` client, shared by the PostgreSQL and PGlite adapters. */
export function knexStorage(options: {
  kind: string;
  description: string;
  knex: Knex;
  replicas?: ReplicaRouting;
  onClose?: () => Promise<void>;
  /** Holds off other processes while the migrations run (PostgreSQL); PGlite has one process. */
  exclusively?: <T>(work: () => Promise<T>, onWait?: () => void) => Promise<T>;
}): Storage {
  const { knex } = options;
  return {
    kind: options.kind,
    description: options.description,
    knex,
    ...(options.replicas ? { replicas: options.replicas } : {}),
    async migrate(migrations, progress) {
      const byName = new Map(migrations.map((m) => [m.name, m]));
      const source: Knex.MigrationSource<Migration> = {
        getMigrations: async () => [...migrations],
        getMigrationName: (m) => m.name,
        getMigration: async (m) => {
          const migration = byName.get(m.name) ?? m;
          return { up: (k: Knex) => migration.up(k), down: (k: Knex) => (migration.down ? migration.down(k) : Promise.resolve()) };
        },
      };
      // knex creates its tables before it takes its own lock (and fails rather than waits when
      // another process holds that one): everything runs under the storage's lock.
      const latest = async () => {
        const [, applied] = (await knex.migrate.latest({
          migrationSource: source,
          tableName: MIGRATIONS_TABLE,
          // A plugin that was removed leaves its rows behind; that is not corruption.
          disableMigrationsListValidation: true,
        })) as [number, string[]];
        return applied;
      };
      return options.exclusively ? options.exclusively(latest, progress?.onWait) : latest();
    },
    transaction: (work) => knex.transaction(work),
    async close() {
      await knex.destroy();
      await options.onClose?.();
    },
  };
}
