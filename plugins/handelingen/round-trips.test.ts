import assert from 'node:assert/strict';
import { archive, zrcRules } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { parts, registreren } from '../../test/helpers/handelingen.js';
import { startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { roundTripsDuring } from '../../test/helpers/statements.js';
import { handelingen } from './index.js';

/**
 * What makes a handeling cheaper than the calls it replaces: one transaction in which each part finds
 * and locks its zaak without reading it again (the transaction holds it), and each audit row travels
 * with the statement after it.
 */
for (const backend of BACKENDS) {
  describe(`round trips of the handelingen on ${backend.name}`, () => {
    let api: TestServer;
    /** The request's own statements, not the outbox dispatcher's. */
    const own = (sql: string) => !/(from|update|analyze) "?outbox"?\b|outbox_dispatch|synchronous_commit/i.test(sql);
    /** The fewest round trips in three runs of `work`: once its statements are prepared on the connection they run on. */
    const fewest = async (work: () => Promise<string[]>) => {
      const runs: string[][] = [];
      for (let i = 0; i < 3; i++) runs.push(await work());
      return runs.reduce((best, run) => (run.length < best.length ? run : best));
    };
    const post = async (path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json });
      assert.ok(response.status < 300, `${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    const zaakReads = (sent: string[]) => sent.flatMap((text) => text.split(/\n;\n/)).filter((sql) => /^\s*(select .* from "zaak"|EXECUTE "zaak_by_uuid)/is.test(sql));

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [zrcRules(), archive(), handelingen()] });
    });
    after(async () => api?.close());

    it('registers a zaak with its status, 3 rollen and 2 zaakobjecten in 9 round trips, reading the zaak twice', async () => {
      const sent = await fewest(() => roundTripsDuring(() => post('/zaak_registreren', registreren()), own));
      // BEGIN with the zaak and its audit row; status, 3 rollen, 2 zaakobjecten, each with the audit row before it; the answer's zaak with the last audit row; COMMIT.
      // Where creates are rare (a slow machine), a create reserves its identificatie first, with the BEGIN: one more.
      const reserving = sent[0].includes('zaak_reserve_identificaties') ? 1 : 0;
      assert.ok(sent.length <= 9 + reserving, `${sent.length} round trips:\n${sent.join('\n---\n')}`);
      // The new zaak read back once after its insert, and once with its records for the answer: no part reads it again.
      assert.equal(zaakReads(sent).length, 2, zaakReads(sent).join('\n---\n'));
    });

    it('closes a zaak in 9 round trips, locking it once, reading its resultaat once and not reading the zaak back after its update', async () => {
      const best = await fewest(async () => {
        const { zaak } = await post('/zaak_registreren', registreren());
        return roundTripsDuring(() => post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: { toelichting: 'Afgehandeld' }, resultaat: parts.resultaat(), status: parts.eindstatus() }), own);
      });
      // The zaak read (authorization); BEGIN with it locked; its update with its audit row and the resultaat's conflict check; the resultaat;
      // its audit row with the closing check's read of the resultaat; the documents; the eindstatus; its audit row, the closing update and the answer's zaak; COMMIT.
      assert.ok(best.length <= 9, `${best.length} round trips:\n${best.join('\n---\n')}`);
      const statements = best.flatMap((text) => text.split(/\n;\n/));
      const locks = statements.filter((sql) => /for update|zaak_by_uuid\w*_locked/i.test(sql));
      assert.equal(locks.length, 1, locks.join('\n---\n'));
      // zrc-rules' closing check and the archive derivation read it once between them.
      const resultaatReads = statements.filter((sql) => /^\s*select "resultaat"\.\*/i.test(sql));
      assert.equal(resultaatReads.length, 1, resultaatReads.join('\n---\n'));
      // Before the transaction, locked in it, and for the answer after the closing update.
      assert.equal(zaakReads(best).length, 3, zaakReads(best).join('\n---\n'));
    });
  });
}
