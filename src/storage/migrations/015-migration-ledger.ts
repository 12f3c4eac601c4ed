import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * What `zaakregister import` keeps so that an import can be resumed, rerun and verified:
 *
 * - `migration_job`: one import (its options, the checksum of its input, counters, status);
 * - `migration_item`: per job one row per input line that was dealt with, written in the transaction
 *   of that line's bundle: a job killed at any moment resumes with the lines that have none, so no
 *   bundle is written twice and none is left out;
 * - `migration_zaak`: per imported zaak the checksum of the line it came from, across jobs: a rerun of
 *   the same line is `unchanged`, a different one a `conflict` (or replaced);
 * - `migration_upload`: the lines uploaded to a job through the HTTP API (never a server-side path).
 */
export const migrationLedgerMigration: Migration = {
  name: 'core/015_migration_ledger',
  async up(knex: Knex) {
    await knex.raw(`
      create table migration_job (
        id uuid primary key,
        status varchar(20) not null default 'pending',
        options jsonb not null default '{}',
        source_sha256 char(64),
        total integer,
        counters jsonb not null default '{}',
        created_by varchar(255) not null default '',
        created_at timestamptz not null default now(),
        started_at timestamptz,
        finished_at timestamptz
      )`);
    await knex.raw('create index migration_job_source on migration_job (source_sha256, status)');
    await knex.raw(`
      create table migration_item (
        job_id uuid not null references migration_job (id) on delete cascade,
        line integer not null,
        zaak_uuid uuid,
        identificatie varchar(40) not null default '',
        content_sha256 char(64) not null,
        status varchar(20) not null,
        message text not null default '',
        at timestamptz not null default now(),
        primary key (job_id, line)
      )`);
    await knex.raw(`
      create table migration_zaak (
        zaak_uuid uuid primary key,
        content_sha256 char(64) not null,
        job_id uuid not null,
        line integer not null
      )`);
    await knex.raw(`
      create table migration_upload (
        job_id uuid not null references migration_job (id) on delete cascade,
        line integer not null,
        content text not null,
        primary key (job_id, line)
      )`);
  },
  async down(knex: Knex) {
    for (const table of ['migration_upload', 'migration_zaak', 'migration_item', 'migration_job']) await knex.schema.dropTable(table);
  },
};
