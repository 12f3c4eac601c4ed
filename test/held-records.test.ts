import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { statementsDuring } from './helpers/statements.js';

/**
 * A transaction that holds a zaak reads a kind of its records once (`services.zaken.records`): again
 * only after a statement that may have changed that kind's table, whoever sent it.
 */
for (const backend of BACKENDS) {
  describe(`records of zaken held by a transaction on ${backend.name}`, () => {
    let api: TestServer;
    let knex: Knex;
    let uuid: string;
    const resultaatReads = (work: () => Promise<unknown>) => statementsDuring(knex, work, (sql) => /from "resultaat"/.test(sql));
    const rolledBack = (error: { rollback?: boolean }) => assert.ok(error.rollback, String(error));
    const rollback = () => {
      throw Object.assign(new Error('rolled back'), { rollback: true });
    };

    before(async () => {
      api = await startRegistry(await backend.open());
      knex = api.registry.services.storage.knex;
      const response = await api.request('/zaken', { method: 'POST', json: zaakInput() });
      assert.equal(response.status, 201, response.text);
      uuid = response.body.uuid;
    });
    after(async () => api?.close());

    it('reads the resultaat of a locked zaak once, and again after a resultaat is written', async () => {
      const { zaken } = api.registry.services;
      await knex
        .transaction(async (tx) => {
          const scope = { baseUrl: api.base, tx };
          await zaken.find(scope, uuid, { lock: true });
          assert.equal((await resultaatReads(() => zaken.records(scope, 'resultaat', uuid))).length, 1);
          const again = await resultaatReads(async () => assert.deepEqual(await zaken.records(scope, 'resultaat', uuid), []));
          assert.deepEqual(again, []);
          await zaken.createRecord(scope, 'resultaat', { zaak: `${api.base}/zaken/${uuid}`, resultaattype: TYPES.resultaattype, toelichting: 'Toegekend' });
          const read: Record<string, unknown>[][] = [];
          const sent = await resultaatReads(async () => {
            read.push(await zaken.records(scope, 'resultaat', uuid));
            read.push(await zaken.records(scope, 'resultaat', uuid));
          });
          assert.equal(sent.filter((sql) => /^\s*select "resultaat"\.\*/.test(sql)).length, 1);
          assert.deepEqual(read.map((records) => records.map((r) => r.toelichting)), [['Toegekend'], ['Toegekend']]);
          // Each answer is a copy: changing one does not change the next.
          read[1][0].toelichting = 'veranderd';
          assert.equal((await zaken.records(scope, 'resultaat', uuid))[0].toelichting, 'Toegekend');
          await tx.raw('delete from resultaat where zaak_id = (select id from zaak where uuid = ?)', [uuid]);
          assert.deepEqual(await zaken.records(scope, 'resultaat', uuid), [], "a plugin's raw SQL is seen");
          rollback();
        })
        .catch(rolledBack);
    });

    it('reads the records of a zaak it has not locked every time', async () => {
      const { zaken } = api.registry.services;
      await knex.transaction(async (tx) => {
        const scope = { baseUrl: api.base, tx };
        const sent = await resultaatReads(async () => {
          await zaken.records(scope, 'resultaat', uuid);
          await zaken.records(scope, 'resultaat', uuid);
        });
        assert.equal(sent.length, 2);
      });
    });
  });
}
