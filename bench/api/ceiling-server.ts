/**
 * The ceiling of a list page here: a bare node:http + pg server answering a page with one query over
 * already rendered JSON (`string_agg` over a pre-rendered table, never parsed in Node) plus a maintained
 * count. No framework, authentication, authorization or rendering: what a page can cost at best.
 * The pre-rendered table is made once from the seeded zaken. Prints `ready <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE!, max: 10 });

const exists = (await pool.query(`select to_regclass('bench_ceiling_zaak') is not null as exists`)).rows[0].exists;
if (!exists) {
  await pool.query('create table bench_ceiling_zaak (id bigint primary key, json text not null)');
  await pool.query('insert into bench_ceiling_zaak select id, row_to_json(z)::text from zaak z');
  await pool.query('create table bench_ceiling_count as select count(*)::int as n from bench_ceiling_zaak');
  await pool.query('vacuum analyze bench_ceiling_zaak');
}

const PAGE = 'select string_agg(json, \',\') as results from (select json from bench_ceiling_zaak order by id limit 100 offset $1) p';

const server = createServer(async (req, res) => {
  const page = Number(new URL(req.url!, 'http://x').searchParams.get('page') ?? 1);
  const [count, results] = await Promise.all([
    pool.query({ name: 'ceiling_count', text: 'select n from bench_ceiling_count' }),
    pool.query({ name: 'ceiling_page', text: PAGE, values: [(page - 1) * 100] }),
  ]);
  const body = `{"count":${count.rows[0].n},"next":null,"previous":null,"results":[${results.rows[0].results ?? ''}]}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
