import type { Logger } from '../log.js';
import type { Migration } from './types.js';

/**
 * The migrations, each logging a line when it is applied, with its duration: a fresh database takes
 * a while, and a line per step shows where the time goes.
 */
export function loggingProgress(migrations: readonly Migration[], log: Logger): Migration[] {
  return migrations.map((migration) => ({
    ...migration,
    async up(knex) {
      const started = performance.now();
      await migration.up(knex);
      const durationMs = Math.round(performance.now() - started);
      log.info(`applied migration ${migration.name} (${durationMs} ms)`, { migration: migration.name, durationMs });
    },
  }));
}
