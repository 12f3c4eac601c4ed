import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Storage } from '../src/index.js';
import { directRows, insertRow, namedRows, namedStatement } from '../src/storage/named-statement.js';
import { DEFERRED_WRITE, PREPARED, preparedName } from '../src/storage/statement-batching.js';
import { BACKENDS } from './helpers/backends.js';
import { roundTripsDuring } from './helpers/statements.js';

for (const backend of BACKENDS) {
  describe(`named statements past knex's runner on ${backend.name}`, () => {
    let storage: Storage;
    let knex: Knex;
    const byLabel = () => namedStatement('named_by_label', storage.knex('named').where('label', '?').select('id', 'label'));

    before(async () => {
      storage = await backend.open();
      knex = storage.knex;
      await knex.schema.createTable('named', (t) => {
        t.increments('id');
        t.string('label').unique();
      });
      await knex('named').insert([{ label: 'one' }, { label: 'two' }]);
      await knex.schema.createTable('inserted', (t) => {
        t.increments('id');
        t.string('label').unique();
        t.string('shouted');
        t.string('note').notNullable().defaultTo('none');
        t.string('we"ird');
        t.jsonb('payload');
      });
    });
    after(async () => storage?.close());

    it('compiles once to the driver text with its bindings', () => {
      const statement = byLabel();
      assert.equal(statement.name, 'named_by_label');
      assert.match(statement.nativeSql, /"label" = \$1/);
      assert.deepEqual(statement.bindings, ['?']);
    });

    it('answers rows on a pooled connection in one round trip, announced by knex events as its runner does', async () => {
      const events: string[] = [];
      const uids = new Set<string>();
      const onQuery = (query: { sql: string; method: string; __knexQueryUid: string }) => {
        events.push(`query ${query.method}`);
        uids.add(query.__knexQueryUid);
      };
      const onResponse = (response: unknown, query: { __knexQueryUid: string }) => {
        events.push(`query-response ${Array.isArray(response) ? 'rows' : typeof response}`);
        uids.add(query.__knexQueryUid);
      };
      knex.on('query', onQuery).on('query-response', onResponse);
      try {
        let rows: { label: string }[] = [];
        const sent = await roundTripsDuring(async () => (rows = await namedRows(knex, byLabel(), ['two'])));
        assert.deepEqual(rows.map((row) => row.label), ['two']);
        assert.equal(sent.length, 1, sent.join('\n'));
        assert.deepEqual(events, ['query select', 'query-response rows']);
        assert.equal(uids.size, 1, 'the response is matched to its query by the same uid');
      } finally {
        knex.off('query', onQuery).off('query-response', onResponse);
      }
    });

    it("fails with the driver's error, announces it, and gives the connection back to the pool", async () => {
      const broken = namedStatement('named_broken', knex.raw('select 1 / (? - 1) as x', [1]));
      const failures: unknown[] = [];
      const onError = (error: unknown) => failures.push(error);
      knex.on('query-error', onError);
      try {
        await assert.rejects(namedRows(knex, broken, [1]), (error: { code?: string; message: string }) => error.code === '22012' && error.message.startsWith('select 1 / ($1 - 1) as x - '));
      } finally {
        knex.off('query-error', onError);
      }
      assert.equal(failures.length, 1);
      // More reads than the pool has connections: none was lost to the failure.
      const answers = await Promise.all(Array.from({ length: 25 }, () => namedRows<{ label: string }>(knex, byLabel(), ['one'])));
      assert.ok(answers.every((rows) => rows[0]?.label === 'one'));
    });

    it('runs a PREPARED select built by knex on the pool with the rows knex would answer, prepared once per connection', async () => {
      const build = (db: Knex = knex) => db('named').whereIn('label', ['one', 'two']).orderBy('id').select('id', 'label');
      const prepared: unknown[] = [];
      const onQuery = (query: { options?: { prepare?: boolean } }) => prepared.push(query.options?.prepare);
      knex.on('query', onQuery);
      try {
        assert.deepEqual(await directRows(knex, build(), PREPARED), await build());
      } finally {
        knex.off('query', onQuery);
      }
      assert.deepEqual(prepared, [true, undefined]);
      const name = preparedName(build().toSQL().toNative().sql)!;
      const found = await knex.transaction(async (tx) => {
        await directRows(tx, build(tx), PREPARED);
        return (await tx.raw('select count(*)::int as n from pg_prepared_statements where name = ?', [name])).rows[0].n as number;
      });
      assert.equal(found, 1, `the statement is prepared on the connection under ${name}`);
    });

    it('writes in a transaction with the batching options (a DEFERRED_WRITE travels with the COMMIT), announced as an insert; refuses a completed transaction', async () => {
      const methods: string[] = [];
      const onQuery = (query: { method: string }) => methods.push(query.method);
      knex.on('query', onQuery);
      let finished: Knex.Transaction | undefined;
      try {
        const sent = await roundTripsDuring(() =>
          knex.transaction(async (tx) => {
            finished = tx;
            await directRows(tx, tx('named').insert({ label: 'first write' }).returning('id'), {});
            await directRows(tx, tx('named').insert({ label: 'deferred write' }), DEFERRED_WRITE);
          }),
        );
        assert.equal(sent.length, 2, sent.join('\n---\n'));
        assert.match(sent[1], /'deferred write'.*COMMIT/is);
      } finally {
        knex.off('query', onQuery);
      }
      assert.deepEqual(methods.filter((method) => method === 'insert').length, 2);
      assert.deepEqual(await knex('named').whereIn('label', ['first write', 'deferred write']).orderBy('id').pluck('label'), ['first write', 'deferred write']);
      await assert.rejects(directRows(finished!, finished!('named').select('id'), PREPARED), /already complete/);
    });

    it('refuses a statement that a COMMIT or ROLLBACK overtook: it never runs outside the transaction', async () => {
      const refused: unknown[] = [];
      const onError = (error: Error) => refused.push(error.message);
      knex.on('query-error', onError);
      let sent: string[] = [];
      try {
        sent = await roundTripsDuring(() =>
          knex
            .transaction(async (tx) => {
              await tx('named').insert({ label: 'kept out' });
              const overtaken = directRows(tx, tx('named').insert({ label: 'overtaken' }), {});
              const late = directRows(tx, tx('named').insert({ label: 'overtaken too' }), {});
              await tx.rollback();
              await assert.rejects(Promise.all([overtaken, late]), /already complete/);
            })
            .catch((error: unknown) => {
              if (!(error instanceof Error) || error.message !== 'Transaction rejected with non-error: undefined') throw error;
            }),
        );
      } finally {
        knex.off('query-error', onError);
      }
      assert.deepEqual(await knex('named').whereIn('label', ['kept out', 'overtaken', 'overtaken too']).pluck('label'), []);
      assert.equal(sent.filter((text) => /insert into "named"/i.test(text)).length, 1, `only the first insert was sent:\n${sent.join('\n---\n')}`);
      assert.equal(refused.length, 2, 'each refused statement is announced as failed');
      const inTransaction: unknown[] = [];
      const onTxQuery = (query: { __knexTxId?: string }) => inTransaction.push(query.__knexTxId);
      knex.on('query', onTxQuery);
      try {
        await knex.transaction(async (tx) => void (await namedRows(tx, byLabel(), ['one'])));
      } finally {
        knex.off('query', onTxQuery);
      }
      assert.ok(inTransaction.some((id) => typeof id === 'string' && id.length > 0), 'events of a transaction carry its id');
    });

    describe('insertRow', () => {
      const row = (label: string) => ({ label, shouted: knex.raw('upper(?)', [label]), note: undefined, 'we"ird': `${label}"s`, payload: JSON.stringify({ label }) });

      it('stores what a knex insert stores, computes raw columns in the database, leaves undefined ones to their default and answers `returning`', async () => {
        const [answered] = await insertRow<{ id: number; shouted: string }>(knex, 'inserted', row('alpha'), { returning: '"id", "shouted"' });
        assert.equal(answered.shouted, 'ALPHA');
        await knex('inserted').insert({ ...row('beta'), shouted: knex.raw('upper(?)', ['beta']) });
        const stored = await knex('inserted').whereIn('label', ['alpha', 'beta']).orderBy('id').select('label', 'shouted', 'note', 'we"ird', 'payload');
        assert.deepEqual(stored[0], { label: 'alpha', shouted: 'ALPHA', note: 'none', 'we"ird': 'alpha"s', payload: { label: 'alpha' } });
        assert.deepEqual(stored[1], { label: 'beta', shouted: 'BETA', note: 'none', 'we"ird': 'beta"s', payload: { label: 'beta' } }, 'knex stores the same');
        assert.equal((await knex('inserted').where('id', answered.id).first('label')).label, 'alpha');
      });

      it('sends one text per shape with the values bound, whatever the values', async () => {
        const sent = await roundTripsDuring(async () => {
          await insertRow(knex, 'inserted', row('gamma'));
          await insertRow(knex, 'inserted', row('delta'));
          await insertRow(knex, 'inserted', { label: 'epsilon' });
        });
        assert.equal(sent.length, 3);
        assert.equal(sent[0], sent[1]);
        assert.match(sent[0], /^insert into "inserted" \("label", "shouted", "we""ird", "payload"\) values \(\$1, upper\(\$2\), \$3, \$4\)$/);
        assert.equal(sent[2], 'insert into "inserted" ("label") values ($1)');
        const other = await roundTripsDuring(() => insertRow(knex, 'inserted', { ...row('theta'), shouted: knex.raw('lower(?)', ['THETA']) }));
        assert.match(other[0], /lower\(\$2\)/, 'a shape that differs only in a raw expression has its own text');
      });

      it("writes a row of no values as knex does (the columns' defaults)", async () => {
        const [answered] = await insertRow<{ note: string; label: string | null }>(knex, 'inserted', { label: undefined }, { returning: '"note", "label"' });
        assert.deepEqual(answered, { note: 'none', label: null });
      });

      it('leaves a raw expression with a quote in it to knex, so a ? in a literal (escaped for knex) is no binding', async () => {
        const [answered] = await insertRow<{ shouted: string }>(knex, 'inserted', { label: 'zeta', shouted: knex.raw("coalesce(?, 'what\\?')", [null]) }, { returning: '"shouted"' });
        assert.equal(answered.shouted, 'what?');
        // jsonb's key-exists operator, escaped for knex: `\?` is no binding either.
        const [exists] = await insertRow<{ shouted: string }>(knex, 'inserted', { label: 'iota', shouted: knex.raw('(?::jsonb) \\? ?', ['{"a": 1}', 'a']) }, { returning: '"shouted"' });
        assert.equal(exists.shouted, 'true');
      });

      it('travels with the COMMIT as a DEFERRED_WRITE, and fails with the constraint a unique violation names', async () => {
        const sent = await roundTripsDuring(() => knex.transaction(async (tx) => void (await insertRow(tx, 'inserted', { label: 'eta' }, DEFERRED_WRITE))));
        assert.equal(sent.length, 1, sent.join('\n---\n'));
        assert.match(sent[0], /'eta'.*COMMIT/is);
        await assert.rejects(insertRow(knex, 'inserted', { label: 'eta' }), (error: { constraint?: string }) => error.constraint === 'inserted_label_unique');
      });
    });

    it("runs on a transaction's own connection: it sees the transaction's uncommitted rows", async () => {
      const undo = new Error('roll back');
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('named').insert({ label: 'uncommitted' });
          const inside = await namedRows<{ label: string }>(tx, byLabel(), ['uncommitted']);
          assert.deepEqual(inside.map((row) => row.label), ['uncommitted']);
          throw undo;
        }),
        (error) => error === undo,
      );
      assert.deepEqual(await namedRows(knex, byLabel(), ['uncommitted']), []);
    });
  });
}
