/**
 * The ceiling of a list page here: a bare node:http + pg server answering a page with one query over
 * already rendered JSON (`string_agg` over a pre-rendered table, or at `/rows` the page's rows joined in
 * Node; never parsed) plus a maintained count. No framework, authentication, authorization or
 * rendering: what a page can cost at best. The pre-rendered table is made once from the seeded zaken, rendered by the registry's own code, so
 * a page holds the same bytes as the registry's (the base URL's port aside). Prints `ready <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { openStorage } from '../../src/index.js';
import type { ZaakRow } from '../../src/resources/zaak/columns.js';
import { relationsOf, zaakColumnsWithRelations } from '../../src/resources/zaak/relations.js';
import { selectZaken } from '../../src/resources/zaak/repository.js';
import { renderZaak } from '../../src/resources/zaak/representation.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE!, max: 10 });

/** Every zaak as the registry renders it, in batches by id. */
async function fill(): Promise<void> {
  const storage = await openStorage(process.env.DATABASE!);
  const knex = storage.knex;
  try {
    await knex.raw('drop table if exists bench_ceiling_zaak, bench_ceiling_count');
    await knex.raw('create table bench_ceiling_zaak (id bigint primary key, json text not null)');
    const baseUrl = 'http://127.0.0.1:40000/zaken/api/v1';
    for (let after = 0; ; ) {
      const rows = (await selectZaken(knex).where('zaak.id', '>', after).orderBy('zaak.id').limit(5000).select(zaakColumnsWithRelations(knex))) as ZaakRow[];
      if (!rows.length) break;
      const relations = relationsOf(rows);
      const ids = rows.map((row) => row.id);
      const texts = rows.map((row) => JSON.stringify(renderZaak(row, relations, baseUrl)));
      await knex.raw('insert into bench_ceiling_zaak select * from unnest(?::bigint[], ?::text[])', [ids, texts]);
      after = ids[ids.length - 1];
    }
    await knex.raw('create table bench_ceiling_count as select count(*)::int as n from bench_ceiling_zaak');
    await knex.raw('vacuum analyze bench_ceiling_zaak');
  } finally {
    await storage.close();
  }
}

// Rendered by an earlier version of this server (`row_to_json` of the stored row) when it has no comment.
const current = (await pool.query(`select obj_description(to_regclass('bench_ceiling_zaak')) as mark`)).rows[0].mark === 'rendered';
if (!current) {
  await fill();
  await pool.query(`comment on table bench_ceiling_zaak is 'rendered'`);
}

// Two ways to send a page of stored JSON without parsing it: one string joined in SQL (the `string_agg`
// ceiling), or the page's rows joined in Node. Which is cheaper depends on the machine (string_agg's
// growing buffer cost 4 ms a page on one, 1 ms on another); the bench compares with the faster.
const PAGE_JOINED_IN_SQL = 'select string_agg(json, \',\') as results from (select json from bench_ceiling_zaak order by id limit 100 offset $1) p';
const PAGE_ROWS = 'select json from bench_ceiling_zaak order by id limit 100 offset $1';

async function results(rowsJoinedInNode: boolean, offset: number): Promise<string> {
  if (rowsJoinedInNode) {
    const { rows } = await pool.query({ name: 'ceiling_rows', text: PAGE_ROWS, values: [offset] });
    return rows.map((row) => row.json).join(',');
  }
  const { rows } = await pool.query({ name: 'ceiling_page', text: PAGE_JOINED_IN_SQL, values: [offset] });
  return rows[0].results ?? '';
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url!, 'http://x');
  const offset = (Number(url.searchParams.get('page') ?? 1) - 1) * 100;
  const [count, page] = await Promise.all([pool.query({ name: 'ceiling_count', text: 'select n from bench_ceiling_count' }), results(url.pathname === '/rows', offset)]);
  const body = `{"count":${count.rows[0].n},"next":null,"previous":null,"results":[${page}]}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
