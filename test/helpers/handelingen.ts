import type { Knex } from 'knex';
import { TYPES, zaakInput } from './registry.js';

/** Bodies of the handelingen's parts (without `zaak`), on the test catalog's zaaktype. */
export const parts = {
  zaak: (overrides: Record<string, unknown> = {}) => zaakInput({ omschrijving: 'Losliggende stoeptegel', ...overrides }),
  status: (statustype: string = TYPES.statustypeStart, datumStatusGezet = '2024-03-01T10:00:00Z') => ({ statustype, datumStatusGezet }),
  eindstatus: () => ({ statustype: TYPES.statustypeEind, datumStatusGezet: '2024-03-05T12:00:00Z' }),
  rol: (bsn: string, roltype: string = TYPES.roltypeBehandelaar) => ({
    betrokkeneType: 'natuurlijk_persoon',
    roltype,
    roltoelichting: `betrokkene ${bsn}`,
    betrokkeneIdentificatie: { inpBsn: bsn, geslachtsnaam: 'Jansen' },
  }),
  zaakobject: (n: number) => ({ objectType: 'pand', object: `http://bag.test/panden/${n}` }),
  resultaat: () => ({ resultaattype: TYPES.resultaattype, toelichting: 'Toegekend' }),
};

/** `zaak_registreren` with three rollen, two zaakobjecten and a first status: the benchmark's and golden test's call. */
export const registreren = (zaak: Record<string, unknown> = {}) => ({
  zaak: parts.zaak(zaak),
  status: parts.status(),
  rollen: [parts.rol('111222333', TYPES.roltypeInitiator), parts.rol('123456782'), parts.rol('999993653')],
  zaakobjecten: [parts.zaakobject(1), parts.zaakobject(2)],
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A moment the registry wrote (clients' moments in these tests have no fraction of a second). */
const WRITTEN_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+/;

/**
 * A value with what differs between two registries doing the same replaced: their base URLs, uuids
 * (numbered in order of appearance), the moments things were written. Everything else must be equal.
 */
export function normalized(value: unknown, base: string, uuids = new Map<string, string>()): unknown {
  if (value instanceof Date) return 'TIJDSTIP';
  if (Array.isArray(value)) return value.map((item) => normalized(item, base, uuids));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalized(item, base, uuids)]));
  if (typeof value !== 'string') return value;
  if (WRITTEN_AT.test(value)) return 'TIJDSTIP';
  if (value.startsWith('{') || value.startsWith('[')) {
    try {
      return normalized(JSON.parse(value), base, uuids);
    } catch {
      // not JSON after all
    }
  }
  return value.split(base).join('BASE').replace(UUID, (uuid) => {
    const key = uuid.toLowerCase();
    if (!uuids.has(key)) uuids.set(key, `UUID-${uuids.size + 1}`);
    return uuids.get(key)!;
  });
}

/** The registry's tables that hold zaken, their records and audit trail (not the migrations', not the outbox). */
export async function recordTables(knex: Knex): Promise<string[]> {
  const rows = (await knex('information_schema.tables').where({ table_schema: knex.raw('current_schema()'), table_type: 'BASE TABLE' }).select('table_name')) as { table_name: string }[];
  return rows.map((row) => row.table_name).filter((name) => !/^knex_|^outbox/.test(name)).sort();
}

/** Every row of those tables, in insertion order, without the columns that only say when. */
export async function storedRows(knex: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of await recordTables(knex)) {
    const columns = (await knex(table).columnInfo()) as Record<string, unknown>;
    if (Object.hasOwn(columns, 'stripe')) {
      // Counter rows (core/004_zaak_count, core/018_record_count): which backend's stripe a count
      // landed in is not a fact about the zaken; the sum per key is.
      const keys = Object.keys(columns).filter((column) => column !== 'stripe' && column !== 'n');
      out[table] = await knex(table).select(keys, knex.raw('sum(n)::int as n')).groupBy(keys).havingRaw('sum(n) <> 0').orderBy(keys);
      continue;
    }
    const rows = await knex(table).select().orderBy(Object.hasOwn(columns, 'id') ? 'id' : Object.keys(columns)[0]);
    out[table] = rows.map(({ created_at: _c, updated_at: _u, revision: _r, ...row }) => row);
  }
  return out;
}

/** The number of rows of every table, the outbox included: what a rolled-back call must leave as it was. */
export async function rowCounts(knex: Knex): Promise<Record<string, number>> {
  const rows = (await knex('information_schema.tables').where({ table_schema: knex.raw('current_schema()'), table_type: 'BASE TABLE' }).select('table_name')) as { table_name: string }[];
  const counts: Record<string, number> = {};
  for (const { table_name: table } of rows.sort((a, b) => a.table_name.localeCompare(b.table_name))) {
    const [{ count }] = await knex(table).count({ count: '*' });
    counts[table] = Number(count);
  }
  return counts;
}
