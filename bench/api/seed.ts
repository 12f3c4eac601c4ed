import type { Knex } from 'knex';
import { ZAAKTYPEN, eigenschapUrl, roltypeUrl, statustypeUrl, zaaktypeUrl } from './world.js';

/** Rows per statement: large enough to amortise a round trip, small enough to report progress. */
const CHUNK = 100_000;

/**
 * Confidentiality by `i % 10`: mostly openbaar, intern and zaakvertrouwelijk, a tail up to geheim
 * (ranks of VERTROUWELIJKHEIDAANDUIDING).
 */
const RANKS = [1, 1, 1, 3, 3, 4, 4, 2, 5, 7];
const NAMES = ['', 'openbaar', 'beperkt_openbaar', 'intern', 'zaakvertrouwelijk', 'vertrouwelijk', 'confidentieel', 'geheim', 'zeer_geheim'];

/** A zaaktype-dependent URL in SQL: the catalog URLs differ only in the zero-padded zaaktype number. */
function urlSql(template: (i: number) => string, expression: string): string {
  const sample = template(0);
  return `'${sample.slice(0, -12)}' || lpad((${expression})::text, 12, '0')`;
}

export interface SeedReport {
  zaken: number;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
}

/**
 * Loads `n` zaken with their records by set-based INSERT … SELECT generate_series in the database
 * itself (no rows cross the wire): a status each, an initiator each and a behandelaar for every
 * second zaak, a zaakobject and a zaakeigenschap for every second, a point geometry for every second, over 100 zaaktypen.
 */
export async function seed(knex: Knex, n: number, log: (line: string) => void = () => {}): Promise<SeedReport> {
  const started = performance.now();
  let rows = 0;
  const rank = `(array[${RANKS.join(',')}])[1 + (i % 10)]`;
  const type = `i % ${ZAAKTYPEN}`;
  for (let from = 1; from <= n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK - 1);
    await knex.transaction(async (tx) => {
      const [{ first }] = (await tx.raw(`select coalesce(max(id), 0) + 1 as first from zaak`)).rows;
      const inserted = await tx.raw(
        `insert into zaak (uuid, identificatie, bronorganisatie, omschrijving, zaaktype, registratiedatum, verantwoordelijke_organisatie,
                           startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank, archiefstatus, zaakgeometrie, zaakgeometrie_bbox)
         select gen_random_uuid(), 'BENCH-' || lpad(i::text, 10, '0'), '517439943', 'Zaak ' || i, ${urlSql(zaaktypeUrl, type)},
                date '2020-01-01' + (i % 2000), '517439943', date '2020-01-01' + (i % 2000),
                (array[${NAMES.map((v) => `'${v}'`).join(',')}])[1 + ${rank}], ${rank},
                case when i % 3 = 0 then 'gearchiveerd' else 'nog_te_archiveren' end,
                case when i % 2 = 0 then jsonb_build_object('type', 'Point', 'coordinates', jsonb_build_array(x, y)) end,
                case when i % 2 = 0 then box(point(x, y), point(x, y)) end
         from generate_series(${from}, ${to}) as i,
              -- Half the zaken carry a point, scattered over the Netherlands (CRS84, the geo-crs storage CRS).
              lateral (select 3.4 + ((i::bigint * 7919) % 40000) / 10000.0 as x, 50.8 + ((i::bigint * 104729) % 27000) / 10000.0 as y) as position`,
      );
      rows += inserted.rowCount;
      // The zaak's number i is its identificatie; children find their zaak by id range.
      const zaken = `from zaak z, lateral (select substr(z.identificatie, 7)::int as i) n where z.id >= ${first}`;
      const records = [
        `insert into status (uuid, zaak_id, statustype, datum_status_gezet)
         select gen_random_uuid(), z.id, ${urlSql((k) => statustypeUrl(k, 1), type)}, z.registratiedatum::timestamptz ${zaken}`,
        `insert into rol (uuid, zaak_id, betrokkene_type, roltype, omschrijving, omschrijving_generiek, roltoelichting, betrokkene_identificatie)
         select gen_random_uuid(), z.id, 'natuurlijk_persoon', ${urlSql((k) => roltypeUrl(k, 'initiator'), type)}, 'initiator', 'initiator', 'aanvrager',
                jsonb_build_object('inpBsn', lpad((i % 999999999)::text, 9, '0'), 'geslachtsnaam', 'Jansen') ${zaken}`,
        `insert into rol (uuid, zaak_id, betrokkene_type, roltype, omschrijving, omschrijving_generiek, roltoelichting, betrokkene_identificatie)
         select gen_random_uuid(), z.id, 'medewerker', ${urlSql((k) => roltypeUrl(k, 'behandelaar'), type)}, 'behandelaar', 'behandelaar', 'behandelt',
                jsonb_build_object('identificatie', 'mw' || (i % 500)) ${zaken} and i % 2 = 0`,
        `insert into zaakobject (uuid, zaak_id, object_type, object_identificatie)
         select gen_random_uuid(), z.id, 'adres', jsonb_build_object('identificatie', 'A' || i, 'wplWoonplaatsNaam', 'Utrecht',
                'gorOpenbareRuimteNaam', 'Plein', 'huisnummer', 1 + i % 200) ${zaken} and i % 2 = 1`,
        `insert into zaakeigenschap (uuid, zaak_id, eigenschap, naam, waarde)
         select gen_random_uuid(), z.id, ${urlSql(eigenschapUrl, type)}, 'kenmerk', 'waarde ' || i ${zaken} and i % 2 = 0`,
      ];
      for (const sql of records) rows += (await tx.raw(sql)).rowCount;
    });
    log(`  seeded ${to.toLocaleString('en')} zaken`);
  }
  // Fresh statistics and a visibility map: plans and index-only scans as on a settled database.
  await knex.raw('vacuum analyze');
  const seconds = (performance.now() - started) / 1000;
  return { zaken: n, rows, seconds, rowsPerSecond: Math.round(rows / seconds) };
}
