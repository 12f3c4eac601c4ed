import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Storage } from '../src/index.js';
import { DEFERRED_WRITE } from '../src/storage/statement-batching.js';
import { BACKENDS } from './helpers/backends.js';
import { roundTripsDuring } from './helpers/statements.js';

/** Deferred inserts that follow each other into the same table and columns travel as one multi-row insert. */
for (const backend of BACKENDS) {
  describe(`statement batching of deferred inserts on ${backend.name}`, () => {
    let storage: Storage;
    let knex: Knex;
    const rows = async () => (await knex('queued').orderBy('id').select('kind', 'label')) as { kind: string; label: string | null }[];
    /** The statements of each round trip. */
    const statements = (sent: string[]) => sent.map((text) => text.split(/\n;\n/));

    before(async () => {
      storage = await backend.open();
      knex = storage.knex;
      await knex.schema.createTable('queued', (t) => {
        t.increments('id');
        t.string('kind').notNullable();
        t.string('label').unique();
      });
      await knex.schema.createTable('other', (t) => {
        t.increments('id');
        t.string('kind');
      });
    });
    beforeEach(async () => {
      await knex('queued').delete();
    });
    after(async () => storage?.close());

    it('joins consecutive inserts with the same columns into one statement, rows in the order written', async () => {
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          await tx('other').insert({ kind: 'first' });
          await tx('queued').insert({ kind: 'a', label: "it's" }).options(DEFERRED_WRITE);
          await tx('queued').insert([{ kind: 'b', label: 'b' }, { kind: 'c', label: null }]).options(DEFERRED_WRITE);
          await tx('queued').insert({ kind: 'd', label: 'd' }).options(DEFERRED_WRITE);
        }),
      );
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      const [inserts, commit] = statements(sent)[1];
      assert.match(inserts, /^insert into "queued" \("kind", "label"\) values \('a', 'it''s'\), \('b', 'b'\), \('c', NULL\), \('d', 'd'\)$/);
      assert.match(commit, /^COMMIT/);
      assert.deepEqual(await rows(), [
        { kind: 'a', label: "it's" },
        { kind: 'b', label: 'b' },
        { kind: 'c', label: null },
        { kind: 'd', label: 'd' },
      ]);
    });

    it('keeps inserts apart when their columns or table differ, or another write comes between', async () => {
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          await tx('other').insert({ kind: 'first' });
          await tx('queued').insert({ kind: 'a', label: 'a' }).options(DEFERRED_WRITE);
          await tx('queued').insert({ kind: 'b' }).options(DEFERRED_WRITE);
          await tx('other').insert({ kind: 'x' }).options(DEFERRED_WRITE);
          await tx('queued').insert({ kind: 'c' }).options(DEFERRED_WRITE);
          await tx('queued').insert({ kind: 'd', label: 'd' }).onConflict('label').ignore().options(DEFERRED_WRITE);
        }),
      );
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      assert.equal(statements(sent)[1].length, 6, sent[1]);
      assert.deepEqual((await rows()).map((row) => row.kind), ['a', 'b', 'c', 'd']);
    });

    it('does not join inserts across a statement sent between them', async () => {
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          await tx('queued').insert({ kind: 'a' }).options(DEFERRED_WRITE);
          await tx('other').count();
          await tx('queued').insert({ kind: 'b' }).options(DEFERRED_WRITE);
        }),
      );
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      assert.match(sent[0], /^BEGIN\s*;\s*insert into "queued" \("kind"\) values \('a'\)\s*;\s*select count/);
      assert.match(sent[1], /^insert into "queued" \("kind"\) values \('b'\)\s*;\s*COMMIT/);
    });

    it('a row of the joined insert that fails fails the commit and writes none of them', async () => {
      await knex('queued').insert({ kind: 'old', label: 'taken' });
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('other').insert({ kind: 'first' });
          await tx('queued').insert({ kind: 'a', label: 'new' }).options(DEFERRED_WRITE);
          await tx('queued').insert({ kind: 'b', label: 'taken' }).options(DEFERRED_WRITE);
        }),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual((await rows()).map((row) => row.kind), ['old']);
    });
  });
}
