import assert from 'node:assert/strict';
import { configProblems, databaseLocation, locateDatabase, type CliConfig } from '../src/config.js';

describe('"database" in the configuration file', () => {
  const problemsOf = (database: unknown) => configProblems({ database }, { serving: false }).filter((problem) => problem.path.startsWith('/database'));

  it('takes a string or a PostgreSQL server with its options', () => {
    assert.deepEqual(problemsOf('postgres://db/zaken'), []);
    assert.deepEqual(problemsOf({ primary: 'postgres://db/zaken', preparedStatements: false }), []);
  });

  it('refuses an object without a postgres:// primary, or with an unknown or mistyped key', () => {
    assert.ok(problemsOf({ primary: 'mysql://db/zaken' }).length > 0);
    assert.ok(problemsOf({ preparedStatements: false }).length > 0);
    assert.ok(problemsOf({ primary: 'postgres://db/zaken', preparedStatements: 'no' }).length > 0);
    assert.ok(problemsOf({ primary: 'postgres://db/zaken', replica: 'postgres://other/zaken' }).length > 0);
  });

  it('DATABASE_URL and --database replace the primary and keep its options', () => {
    const config: CliConfig = { database: { primary: 'postgres://db/zaken', preparedStatements: false } };
    locateDatabase(config, 'postgres://pgbouncer:6432/zaken');
    assert.deepEqual(config.database, { primary: 'postgres://pgbouncer:6432/zaken', preparedStatements: false });
    assert.equal(databaseLocation(config), 'postgres://pgbouncer:6432/zaken');
    const plain: CliConfig = { database: 'memory' };
    locateDatabase(plain, 'postgres://db/zaken');
    assert.equal(plain.database, 'postgres://db/zaken');
    assert.equal(databaseLocation({}), '.zaakregister-data');
  });
});
