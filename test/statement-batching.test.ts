import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Storage } from '../src/index.js';
import { DEFERRED_WRITE, PREPARED, preparedName, withLiterals } from '../src/storage/statement-batching.js';
import { isStalePlan } from '../src/storage/types.js';
import { BACKENDS } from './helpers/backends.js';
import { roundTripsDuring } from './helpers/statements.js';

describe('statement batching: placeholders become literals', () => {
  it('replaces each placeholder by the literal of its value, $10 not read as $1', () => {
    const values = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    assert.equal(withLiterals('select $1, $10, $2', values), "select 'v1', 'v10', 'v2'");
  });

  it('leaves quoted strings, identifiers, dollar-quoted bodies and comments alone', () => {
    const text = `select '$1', "col$1", $$ $1 $$, $tag$ $1 $tag$, E'\\' $1', x$1 -- $1\n, /* $1 */ $1`;
    assert.equal(withLiterals(text, ['v']), `select '$1', "col$1", $$ $1 $$, $tag$ $1 $tag$, E'\\' $1', x$1 -- $1\n, /* $1 */ 'v'`);
  });

  it('escapes quotes and backslashes, writes null as NULL', () => {
    assert.equal(withLiterals('select $1, $2', ["it's", null]), "select 'it''s', NULL");
    assert.equal(withLiterals('select $1', ['a\\b']), "select  E'a\\\\b'");
  });

  it('quotes every string as pg.escapeLiteral does', () => {
    for (const text of ['', 'plain', "it's", "''", '\\', "a\\'b", '\\\\x', 'ünïcode ✓\n\t', "'; drop table zaak; --"]) {
      assert.equal(withLiterals('$1', [text]), pg.escapeLiteral(text), text);
    }
  });

  it('refuses a placeholder without a value', () => {
    assert.throws(() => withLiterals('select $2', ['only one']), /placeholder \$2 but 1 values/);
  });
});

for (const backend of BACKENDS) {
  describe(`statement batching on ${backend.name}`, () => {
    let storage: Storage;
    let knex: Knex;
    const rows = async () => (await knex('batched').orderBy('id').pluck('label')) as string[];

    before(async () => {
      storage = await backend.open();
      knex = storage.knex;
      await knex.schema.createTable('batched', (t) => {
        t.increments('id');
        t.string('label').unique();
      });
      await knex.schema.createTable('typed', (t) => {
        t.increments('id');
        t.text('text');
        t.integer('number');
        t.boolean('flag');
        t.timestamp('moment', { useTz: true });
        t.date('day');
        t.binary('bytes');
        t.specificType('labels', 'text[]');
        t.specificType('numbers', 'integer[]');
        t.jsonb('document');
      });
    });
    beforeEach(async () => {
      await knex('batched').delete();
    });
    after(async () => storage?.close());

    it('sends BEGIN with the first statement and a deferred write with the COMMIT: two round trips', async () => {
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          const [row] = await tx('batched').insert({ label: 'first' }).returning('id');
          await tx('batched').insert({ label: `after ${row.id}` }).options(DEFERRED_WRITE);
        }),
      );
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      assert.match(sent[0], /^BEGIN\s*;\s*insert into "batched"/i);
      assert.match(sent[1], /^insert into "batched".*'after \d+'\)\s*;\s*COMMIT/is);
      assert.equal((await rows()).length, 2);
    });

    it('sends nothing for a transaction that sends nothing, or rolls back before anything was sent', async () => {
      const sent = await roundTripsDuring(async () => {
        await knex.transaction(async () => {});
        await assert.rejects(
          knex.transaction(async (tx) => {
            await tx('batched').insert({ label: 'never' }).options(DEFERRED_WRITE);
            throw new Error('changed my mind');
          }),
          /changed my mind/,
        );
      });
      assert.deepEqual(sent, []);
      assert.deepEqual(await rows(), []);
    });

    it('a deferred write that fails fails the commit with its own error, writes nothing, and leaves the connection usable', async () => {
      await knex('batched').insert({ label: 'taken' });
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('batched').insert({ label: 'new' });
          await tx('batched').insert({ label: 'taken' }).options(DEFERRED_WRITE);
        }),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual(await rows(), ['taken']);
      // Every connection of the pool (PGlite has one) still takes transactions.
      await Promise.all(Array.from({ length: 4 }, (_, i) => knex.transaction((tx) => tx('batched').insert({ label: `later ${i}` }))));
      assert.equal((await rows()).length, 5);
    });

    it('a deferred write is sent before a statement that follows it in the transaction, and is seen by it', async () => {
      const count = await knex.transaction(async (tx) => {
        await tx('batched').insert({ label: 'deferred' }).options(DEFERRED_WRITE);
        return Number((await tx('batched').count({ n: '*' }))[0].n);
      });
      assert.equal(count, 1);
    });

    it('a deferred write in a savepoint travels with its RELEASE or ROLLBACK TO: kept or undone with it', async () => {
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          await tx('batched').insert({ label: 'outer' });
          await tx.transaction(async (inner) => {
            await inner('batched').insert({ label: 'kept' }).options(DEFERRED_WRITE);
          });
          await assert.rejects(
            tx.transaction(async (inner) => {
              await inner('batched').insert({ label: 'undone' }).options(DEFERRED_WRITE);
              throw new Error('undo');
            }),
            /undo/,
          );
        }),
      );
      assert.deepEqual(await rows(), ['outer', 'kept']);
      assert.ok(sent.some((text) => /insert into "batched" \("label"\) values \('kept'\)\s*;\s*RELEASE SAVEPOINT/i.test(text)), sent.join('\n---\n'));
      assert.ok(sent.some((text) => /insert into "batched" \("label"\) values \('undone'\)\s*;\s*ROLLBACK TO SAVEPOINT/i.test(text)), sent.join('\n---\n'));
      // One that fails fails its savepoint's release, and with it the transaction.
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('batched').insert({ label: 'before' });
          await tx.transaction(async (inner) => {
            await inner('batched').insert({ label: 'outer' }).options(DEFERRED_WRITE);
          });
        }),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual(await rows(), ['outer', 'kept']);
    });

    it('a query it does not combine (array rows) goes after what is held, which reports its own error first', async () => {
      const read = await knex.transaction(async (tx) => {
        await tx('batched').insert({ label: 'held' }).options(DEFERRED_WRITE);
        return tx('batched').select('label').options({ rowMode: 'array' });
      });
      assert.deepEqual(read, [['held']]);
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('batched').insert({ label: 'held' }).options(DEFERRED_WRITE);
          await tx('batched').select('label').options({ rowMode: 'array' });
        }),
        (error: { code?: string }) => error.code === '23505',
      );
      assert.deepEqual(await rows(), ['held']);
    });

    it('a query sent without a callback (a promise or a stream) goes after BEGIN and the held writes, inside the transaction', async () => {
      /** What `read` sees on the connection of a transaction that holds a write, and what was sent; then rolls back. */
      const heldThenRead = async (read: (connection: pg.Client) => Promise<string[]>) => {
        let seen: string[] = [];
        const sent = await roundTripsDuring(() =>
          assert.rejects(
            knex.transaction(async (tx) => {
              await tx('batched').insert({ label: 'held' }).options(DEFERRED_WRITE);
              seen = await read((await tx.client.acquireConnection()) as pg.Client);
              throw new Error('roll back');
            }),
            /roll back/,
          ),
        );
        assert.deepEqual(await rows(), [], 'rolled back with the transaction: BEGIN went first');
        return { seen, sent };
      };
      const held = `insert into "batched" ("label") values ('held')`;
      const promised = await heldThenRead(async (connection) => {
        const answered = connection.query('select label from batched');
        assert.equal((connection as unknown as { _queryQueue: unknown[] })._queryQueue.length, 0);
        return (await answered).rows.map((row) => row.label);
      });
      assert.deepEqual(promised.seen, ['held'], 'it sees the write held before it');
      assert.deepEqual(promised.sent.slice(0, 2), [`BEGIN\n;\n${held}`, 'select label from batched']);
      const streamed = await heldThenRead(
        (connection) =>
          new Promise((resolve, reject) => {
            const labels: string[] = [];
            const query = connection.query(new pg.Query('select label from batched'));
            // Sent once BEGIN and the held writes are answered, not queued behind them inside pg.
            assert.equal((connection as unknown as { _queryQueue: unknown[] })._queryQueue.length, 0);
            query.on('row', (row: { label: string }) => labels.push(row.label));
            query.on('end', () => resolve(labels));
            query.on('error', reject);
          }),
      );
      assert.deepEqual(streamed.seen, ['held']);
      assert.deepEqual(streamed.sent.slice(0, 3), ['BEGIN', held, 'select label from batched']);
    });

    it('a held BEGIN refused with its writes (a syntax error) fails the statement after it, which never runs outside the transaction', async () => {
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx.raw('insert into batched (label) values (?) returning id; insert into', ['broken']).options(DEFERRED_WRITE);
          await tx('batched').insert({ label: 'after' }).options({ rowMode: 'array' });
        }),
        (error: { code?: string }) => error.code === '42601',
      );
      assert.deepEqual(await rows(), [], 'nothing autocommitted');
    });

    it('a COMMIT of a transaction whose failed statement was caught is an error, not a silent rollback', async () => {
      await knex('batched').insert({ label: 'taken' });
      await assert.rejects(
        knex.transaction(async (tx) => {
          await tx('batched').insert({ label: 'taken' }).options(DEFERRED_WRITE);
          await tx('batched').insert({ label: 'new' }).catch(() => undefined);
        }),
        /rolled back at COMMIT/,
      );
      assert.deepEqual(await rows(), ['taken']);
    });

    it('holds only a BEGIN of its own: a script that begins and commits itself runs as it is', async () => {
      await knex.raw(`begin; insert into batched (label) values ('script'); commit`);
      await knex.transaction((tx) => tx('batched').insert({ label: 'after' }));
      assert.deepEqual(await rows(), ['script', 'after']);
    });

    it('a query of several statements that travels with BEGIN still answers all of them, and only them', async () => {
      const answer = (await knex.transaction((tx) => tx.raw('select 1 as a; select 2 as b'))) as unknown as { rows: unknown[] }[];
      assert.deepEqual(
        answer.map((result) => result.rows),
        [[{ a: 1 }], [{ b: 2 }]],
      );
    });

    it('a prepared statement travels with BEGIN as EXECUTE, with the same answer', async () => {
      const [row] = await knex('batched').insert({ label: 'named' }).returning('id');
      const byLabel = (db: Knex | Knex.Transaction) => db('batched').where({ label: 'named' }).forUpdate().first('id', 'label').options({ name: 'batched_by_label' });
      assert.deepEqual(await byLabel(knex), { id: row.id, label: 'named' });
      let read: unknown;
      const sent = await roundTripsDuring(() =>
        knex.transaction(async (tx) => {
          read = await byLabel(tx);
        }),
      );
      assert.deepEqual(read, { id: row.id, label: 'named' });
      assert.equal(sent.length, 2, sent.join('\n---\n'));
      assert.match(sent[0], /^BEGIN\s*;\s*EXECUTE "batched_by_label"\('named', '1'\)$/);
    });

    it('EXECUTEs a name only for the text pg prepared under it: another text is pg\'s error, not the old statement', async () => {
      const connection = await knex.client.acquireConnection();
      try {
        await knex('batched').insert({ label: 'x' }).connection(connection);
        const named = (db: Knex | Knex.Transaction, column: string) => db('batched').first(column).options({ name: 'batched_reused' }).connection(connection);
        await named(knex, 'label');
        await assert.rejects(
          knex.transaction((tx) => named(tx, 'id'), { connection }),
          /Prepared statements must be unique/,
        );
      } finally {
        await knex.client.releaseConnection(connection);
      }
    });

    it('a PREPARED statement is named after its text: one shape of an insert keeps its plan, another gets its own', async () => {
      const connection = await knex.client.acquireConnection();
      try {
        const insert = (db: Knex | Knex.Transaction, row: Record<string, unknown>) => db('batched').insert(row).returning('label').options(PREPARED).connection(connection);
        await insert(knex, { label: 'one' });
        const sent = await roundTripsDuring(() => knex.transaction((tx) => insert(tx, { label: 'two' }), { connection }));
        assert.match(sent[0], /^BEGIN\s*;\s*EXECUTE "zaakregister_[0-9a-f]+"\('two'\)$/);
        // knex writes DEFAULT for an undefined value: another text, so another name, not pg's "must be unique" error.
        const [row] = await knex.transaction((tx) => insert(tx, { label: undefined }), { connection });
        assert.deepEqual(row, { label: null });
        assert.deepEqual(await knex('batched').orderBy('id').pluck('label').connection(connection), ['one', 'two', null]);
      } finally {
        await knex.client.releaseConnection(connection);
      }
    });

    it('values written as literals read back as the same values as parameters', async () => {
      const value = {
        text: "quote ' backslash \\ unicode ✓ \n newline",
        number: -42,
        flag: false,
        moment: new Date('2026-03-29T01:30:00.123Z'),
        day: '2026-02-28',
        bytes: Buffer.from([0, 1, 0xfe, 0xff]),
        labels: ['a', 'b,c', 'd"e', null],
        numbers: [1, 2, 3],
        document: JSON.stringify({ nested: { list: [1, 'two'], quote: "it's" } }),
      };
      const [asParameters] = await knex('typed').insert(value).returning('id');
      // The first statement of a transaction travels with BEGIN, written with literals.
      const [asLiterals] = await knex.transaction((tx) => tx('typed').insert(value).returning('id'));
      const read = async (id: number) => {
        const { id: _, ...row } = await knex('typed').where({ id }).first();
        return row;
      };
      assert.deepEqual(await read(asLiterals.id), await read(asParameters.id));
      assert.equal((await read(asLiterals.id)).text, value.text);
    });

    // Last: it turns EXECUTE off on the connection it uses.
    it('a statement a pooler renamed on the server (EXECUTE cannot find it) runs as it is, and is not EXECUTEd again', async () => {
      await knex('batched').insert({ label: 'renamed' });
      const connection = await knex.client.acquireConnection();
      try {
        const named = (db: Knex | Knex.Transaction) => db('batched').where({ label: 'renamed' }).first('label').options({ name: 'batched_renamed' }).connection(connection);
        assert.deepEqual(await named(knex), { label: 'renamed' });
        // As behind PgBouncer: the server does not know the statement by pg's name, pg prepares it when it sends it.
        await knex.raw('deallocate "batched_renamed"').connection(connection);
        delete connection.connection.parsedStatements.batched_renamed;
        let read: unknown;
        const sent = await roundTripsDuring(() =>
          knex.transaction(
            async (tx) => {
              await tx('batched').insert({ label: 'held' }).options(DEFERRED_WRITE);
              read = await named(tx);
            },
            { connection },
          ),
        );
        assert.deepEqual(read, { label: 'renamed' });
        assert.match(sent[0], /^BEGIN\s*;\s*insert into "batched".*;\s*EXECUTE "batched_renamed"\('renamed', '1'\)$/s);
        assert.deepEqual(sent.slice(1, 3), ['ROLLBACK', `BEGIN\n;\ninsert into "batched" ("label") values ('held')`]);
        assert.match(sent[3], /^select "label" from "batched"/);
        assert.deepEqual(await knex('batched').orderBy('id').pluck('label').connection(connection), ['renamed', 'held'], 'the write held before it is written once');
        const again = await roundTripsDuring(() => knex.transaction((tx) => named(tx), { connection }));
        assert.deepEqual(again.slice(0, 1), ['BEGIN']);
        assert.ok(!again.some((text) => /EXECUTE/.test(text)), again.join('\n---\n'));
      } finally {
        await knex.client.releaseConnection(connection);
      }
    });
  });
}

for (const backend of BACKENDS) {
  describe(`statement batching on ${backend.name}: a prepared statement whose \`*\` a migration widened`, () => {
    let storage: Storage;
    let knex: Knex;
    let connection: Awaited<ReturnType<Knex['client']['acquireConnection']>>;
    const widen = (column: string) => knex.raw(`alter table widened add column ${column} text`).connection(connection);
    const byLabel = (db: Knex | Knex.Transaction) => db('widened').where({ label: 'w' }).first('widened.*').options({ name: 'widened_by_label' }).connection(connection);
    const insert = (db: Knex | Knex.Transaction, label: string) => db('widened').insert({ label }).returning('*').options(PREPARED).connection(connection);

    before(async () => {
      storage = await backend.open();
      knex = storage.knex;
      await knex.schema.createTable('widened', (t) => {
        t.increments('id');
        t.string('label');
      });
      await knex('widened').insert({ label: 'w' });
    });
    beforeEach(async () => {
      connection = await knex.client.acquireConnection();
    });
    afterEach(async () => knex.client.releaseConnection(connection));

    it('runs again, prepared anew, outside a transaction and as the first statement of one', async () => {
      assert.deepEqual(Object.keys(await byLabel(knex)), ['id', 'label']);
      await knex.transaction((tx) => insert(tx, 'first'), { connection });
      await widen('one');
      // Unhealed, PostgreSQL refuses both: "cached plan must not change result type".
      assert.deepEqual(Object.keys(await byLabel(knex)), ['id', 'label', 'one']);
      await widen('two');
      let read: unknown;
      const sent = await roundTripsDuring(() =>
        knex.transaction(
          async (tx) => {
            read = await byLabel(tx);
          },
          { connection },
        ),
      );
      assert.deepEqual(Object.keys(read as object), ['id', 'label', 'one', 'two']);
      // `_1`: the name the first widening gave it on this connection.
      assert.match(sent[0], /^BEGIN\s*;\s*EXECUTE "widened_by_label_1"\('w', '1'\)$/);
      assert.deepEqual(sent.slice(1, 3), ['ROLLBACK', 'BEGIN'], 'the transaction starts over');
      assert.match(sent[3], /^select "widened"\.\* from "widened"/);
      const [inserted] = await knex.transaction((tx) => insert(tx, 'second'), { connection });
      assert.deepEqual([inserted.label, Object.keys(inserted)], ['second', ['id', 'label', 'one', 'two']]);
      assert.deepEqual(await knex('widened').orderBy('id').pluck('label').connection(connection), ['w', 'first', 'second'], 'the insert retried ran once');
    });

    it('fails a transaction it had run on (retryable), and is prepared anew the next time', async () => {
      assert.equal((await byLabel(knex)).label, 'w');
      await widen('three');
      const midway = knex.transaction(
        async (tx) => {
          await tx('widened').insert({ label: 'midway' }).connection(connection);
          return byLabel(tx);
        },
        { connection },
      );
      await assert.rejects(midway, (error: unknown) => isStalePlan(error));
      assert.equal(await knex('widened').where({ label: 'midway' }).first('id').connection(connection), undefined, 'rolled back');
      const read = await knex.transaction(
        async (tx) => {
          await tx('widened').insert({ label: 'midway' }).connection(connection);
          return byLabel(tx);
        },
        { connection },
      );
      assert.ok('three' in read, JSON.stringify(read));
    });
    after(async () => storage?.close());
  });
}

describe('statement batching: names of prepared statements', () => {
  it('gives one name per text, the same every time', () => {
    const text = `select 'naming test', $1`;
    const name = preparedName(text);
    assert.match(String(name), /^zaakregister_[0-9a-f]+$/);
    assert.equal(preparedName(text), name);
    assert.notEqual(preparedName(`${text}, $2`), name);
  });

  it('names at most 200 texts a process; the rest go unnamed, the named keep their names', () => {
    // In a process of its own: the names are per process, and the other suites' statements need theirs.
    const script = `
      import { preparedName } from './src/storage/statement-batching.ts';
      const first = preparedName('select 0');
      const names = Array.from({ length: 199 }, (_, i) => preparedName('select ' + (i + 1)));
      console.log(JSON.stringify({ first, named: names.filter(Boolean).length, beyond: preparedName('select 200') ?? null, again: preparedName('select 0') }));
    `;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    const { first, named, beyond, again } = JSON.parse(output);
    assert.match(first, /^zaakregister_[0-9a-f]{20}$/);
    assert.equal(named, 199);
    assert.equal(beyond, null);
    assert.equal(again, first);
  });
});

describe('statement batching: a plan gone stale', () => {
  it('is known by its code with the routine that raises it, in any server language, or by its English message', () => {
    assert.equal(isStalePlan({ code: '0A000', routine: 'RevalidateCachedQuery', message: 'der zwischengespeicherte Plan darf den Ergebnistyp nicht ändern' }), true);
    assert.equal(isStalePlan({ code: '0A000', message: 'cached plan must not change result type' }), true);
    assert.equal(isStalePlan({ code: '0A000', routine: 'transformStmt', message: 'some other unsupported feature' }), false);
    assert.equal(isStalePlan({ code: '40001', routine: 'RevalidateCachedQuery' }), false);
    assert.equal(isStalePlan(undefined), false);
  });
});
