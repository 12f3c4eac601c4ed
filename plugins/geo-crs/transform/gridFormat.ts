/**
 * The compact binary grid format shipped in grids/ (written once by
 * scripts/convert-rdnaptrans-grids.ts, read lazily at run time):
 *
 *   bytes 0-7   ASCII magic "ZRGRID01"
 *   bytes 8-11  uint32 LE: byte length L of the JSON header
 *   12..12+L    UTF-8 JSON header (GridHeader), space-padded so the data starts 4-byte aligned
 *   then        Float32 LE values of every level in header order; per level row-major,
 *               rows from south to north, columns west to east, bands interleaved per node
 *
 * Float32 is lossless here: the source GeoTIFFs hold Float32 samples.
 */
const MAGIC = 'ZRGRID01';

export interface GridLevelHeader {
  /** Latitude of the southernmost row of nodes, degrees. */
  south: number;
  /** Longitude of the westernmost column of nodes, degrees. */
  west: number;
  latStep: number;
  lonStep: number;
  rows: number;
  cols: number;
}

export interface GridHeader {
  name: string;
  source: string;
  license: string;
  /** Unit of the stored values, e.g. "arc-second" or "metre". */
  unit: string;
  bands: string[];
  /** Finest level first; a lookup uses the first level that contains the point. */
  levels: GridLevelHeader[];
}

export interface GridLevel extends GridLevelHeader {
  /** rows * cols * bands values, layout as in the file. */
  values: Float64Array;
}

export interface DecodedGrid {
  header: GridHeader;
  levels: GridLevel[];
}

export function encodeGrid(header: GridHeader, levelValues: Float32Array[]): Uint8Array {
  const bandCount = header.bands.length;
  header.levels.forEach((level, i) => {
    if (levelValues[i].length !== level.rows * level.cols * bandCount) {
      throw new Error(`level ${i}: expected ${level.rows * level.cols * bandCount} values, got ${levelValues[i].length}`);
    }
  });
  let json = JSON.stringify(header);
  while ((12 + Buffer.byteLength(json)) % 4 !== 0) json += ' ';
  const jsonBytes = Buffer.from(json, 'utf8');
  const valueCount = levelValues.reduce((sum, values) => sum + values.length, 0);
  const out = new Uint8Array(12 + jsonBytes.length + valueCount * 4);
  const view = new DataView(out.buffer);
  out.set(Buffer.from(MAGIC, 'ascii'), 0);
  view.setUint32(8, jsonBytes.length, true);
  out.set(jsonBytes, 12);
  let offset = 12 + jsonBytes.length;
  for (const values of levelValues) {
    for (const value of values) {
      view.setFloat32(offset, value, true);
      offset += 4;
    }
  }
  return out;
}

/** Decodes a grid file; `scale` converts the stored unit (e.g. 1/3600 for arc-seconds to degrees). */
export function decodeGrid(bytes: Uint8Array, scale = 1): DecodedGrid {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (Buffer.from(bytes.subarray(0, 8)).toString('ascii') !== MAGIC) throw new Error('not a ZRGRID01 grid file');
  const jsonLength = view.getUint32(8, true);
  const header = JSON.parse(Buffer.from(bytes.subarray(12, 12 + jsonLength)).toString('utf8')) as GridHeader;
  let offset = 12 + jsonLength;
  const levels = header.levels.map((level) => {
    const count = level.rows * level.cols * header.bands.length;
    if (offset + count * 4 > bytes.byteLength) throw new Error('grid file truncated');
    const values = new Float64Array(count);
    for (let i = 0; i < count; i++, offset += 4) values[i] = view.getFloat32(offset, true) * scale;
    return { ...level, values };
  });
  return { header, levels };
}
