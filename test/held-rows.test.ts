import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { findZaakByUuid } from '../src/resources/zaak/repository.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { statementsDuring } from './helpers/statements.js';

/**
 * A transaction that holds a zaak (locked it, or created it) reads it from the database once: again
 * only after a statement that may have changed it, whoever sent it.
 */
for (const backend of BACKENDS) {
  describe(`zaken held by a transaction on ${backend.name}`, () => {
    let api: TestServer;
    let knex: Knex;
    let uuid: string;
    const zaakStatements = (work: () => Promise<unknown>) => statementsDuring(knex, work, (sql) => /from "zaak"/.test(sql) && !/outbox/.test(sql));

    before(async () => {
      api = await startRegistry(await backend.open());
      knex = api.registry.services.storage.knex;
      const response = await api.request('/zaken', { method: 'POST', json: zaakInput({ toelichting: 'eerst' }) });
      assert.equal(response.status, 201, response.text);
      uuid = response.body.uuid;
    });
    after(async () => api?.close());

    it('reads a locked zaak once, with and without its relations, until the transaction ends', async () => {
      await knex.transaction(async (tx) => {
        const first = await zaakStatements(() => findZaakByUuid(tx, uuid, { forUpdate: true }));
        assert.equal(first.length, 1);
        const again = await zaakStatements(async () => {
          assert.equal((await findZaakByUuid(tx, uuid))?.toelichting, 'eerst');
          assert.equal((await findZaakByUuid(tx, uuid, { forUpdate: true }))?.uuid, uuid);
        });
        assert.deepEqual(again, []);
        await findZaakByUuid(tx, uuid, { relations: true });
        assert.deepEqual(await zaakStatements(() => findZaakByUuid(tx, uuid, { relations: true })), []);
      });
      // Another transaction holds nothing yet.
      await knex.transaction(async (tx) => assert.equal((await zaakStatements(() => findZaakByUuid(tx, uuid))).length, 1));
    });

    it('reads the zaak again after a statement that may change it, a plugin\'s raw SQL too', async () => {
      await knex.transaction(async (tx) => {
        await findZaakByUuid(tx, uuid, { forUpdate: true });
        await tx.raw(`update zaak set toelichting = 'daarna' where uuid = ?`, [uuid]);
        const sent = await zaakStatements(async () => assert.equal((await findZaakByUuid(tx, uuid))?.toelichting, 'daarna'));
        assert.equal(sent.length, 1);
        throw Object.assign(new Error('rolled back'), { rollback: true });
      }).catch((error: { rollback?: boolean }) => assert.ok(error.rollback, String(error)));
      assert.equal((await findZaakByUuid(knex, uuid))?.toelichting, 'eerst');
    });

    it('reads its relations again after any write, and the zaak row alone does not change with a record', async () => {
      await knex.transaction(async (tx) => {
        const before = await findZaakByUuid(tx, uuid, { forUpdate: true, relations: true });
        assert.deepEqual(before?.rel_zaakobjecten ?? [], []);
        const zaak = (await tx('zaak').where({ uuid }).first('id')) as { id: number };
        await tx('zaakobject').insert({ uuid: '3f0b6c2e-1d9a-4c2b-9a51-6c1f3f6f2a10', zaak_id: zaak.id, object: 'http://bag.test/panden/9', object_type: 'pand' });
        const sent = await zaakStatements(async () => assert.deepEqual((await findZaakByUuid(tx, uuid, { relations: true }))?.rel_zaakobjecten, ['3f0b6c2e-1d9a-4c2b-9a51-6c1f3f6f2a10']));
        assert.equal(sent.length, 1);
        assert.deepEqual(await zaakStatements(() => findZaakByUuid(tx, uuid)), []);
        throw Object.assign(new Error('rolled back'), { rollback: true });
      }).catch((error: { rollback?: boolean }) => assert.ok(error.rollback, String(error)));
    });

    it('reads a zaak it has not locked every time', async () => {
      await knex.transaction(async (tx) => {
        const sent = await zaakStatements(async () => {
          await findZaakByUuid(tx, uuid);
          await findZaakByUuid(tx, uuid);
        });
        assert.equal(sent.length, 2);
      });
    });
  });
}
