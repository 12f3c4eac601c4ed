/**
 * The physical limit: a bare Express 5 + pg handler per operation, the nearest equivalent query and
 * nothing else (no authentication, validation, audit trail or derived fields). Prints `ready <port>`.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE!, max: 10 });
const app = express();
app.use(express.json());

// One row by uuid, as JSON.
app.get('/zaken/:uuid', async (req, res) => {
  const { rows } = await pool.query('select row_to_json(z) as zaak from zaak z where uuid = $1', [req.params.uuid]);
  if (!rows.length) res.status(404).end();
  else res.json(rows[0].zaak);
});

// A page of 100 with its exact count, OFFSET as a naive handler does.
app.get('/zaken', async (req, res) => {
  const page = Number(req.query.page ?? 1);
  const [count, results] = await Promise.all([
    pool.query('select count(*)::int as count from zaak'),
    pool.query('select row_to_json(z) as zaak from zaak z order by id limit 100 offset $1', [(page - 1) * 100]),
  ]);
  res.json({ count: count.rows[0].count, results: results.rows.map((r) => r.zaak) });
});

// A deep page by late row lookup: the page's ids from the primary key alone, then their rows.
app.get('/zaken-late', async (req, res) => {
  const page = Number(req.query.page ?? 1);
  const { rows } = await pool.query(
    'select row_to_json(z) as zaak from (select id from zaak order by id limit 100 offset $1) p join zaak z using (id) order by z.id',
    [(page - 1) * 100],
  );
  res.json({ results: rows.map((r) => r.zaak) });
});

// One row inserted.
app.post('/zaken', async (req, res) => {
  const b = req.body;
  const { rows } = await pool.query(
    `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum,
                       vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
     values (gen_random_uuid(), 'BASE-' || nextval('zaak_identificatie_seq'), $1, $2, current_date, $3, $4, 'openbaar', 1)
     returning row_to_json(zaak.*) as zaak`,
    [b.bronorganisatie, b.zaaktype, b.verantwoordelijkeOrganisatie, b.startdatum],
  );
  res.status(201).json(rows[0].zaak);
});

const server = app.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
