import pg from 'pg';

const DATE = 1082;
const INT8 = 20;

/**
 * Type parsers for this client only (never the global `pg.types`, which belongs to the host app):
 * DATE stays a `YYYY-MM-DD` string (no time-zone shift), counts arrive as numbers.
 */
export const registryTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === DATE) return (value: string) => value;
    if (oid === INT8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};
