/**
 * Locating and lazily loading the RDNAPTRANS2018 grids, and bilinear
 * interpolation in them. The directory logic lives only here (gridPath).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GridUnavailableError } from './errors.js';
import { decodeGrid, type DecodedGrid, type GridLevel } from './gridFormat.js';

export const GRID_DIR_ENV = 'ZAAKREGISTER_GRID_DIR';
const RD_CORRECTION_GRID = 'rdcorr2018.bin';
const GEOID_GRID = 'nlgeo2018.bin';

const ARC_SECOND_IN_DEGREES = 1 / 3600;

let configuredDirectory: string | undefined;
let rdCorrection: DecodedGrid | undefined;
let geoid: DecodedGrid | undefined;

/**
 * Overrides where the grids are read from (takes precedence over the
 * ZAAKREGISTER_GRID_DIR environment variable); `undefined` restores the default.
 * Clears already loaded grids.
 */
export function setGridDirectory(directory: string | undefined): void {
  configuredDirectory = directory;
  rdCorrection = undefined;
  geoid = undefined;
}

/**
 * Full path of a grid file. Order: setGridDirectory(), then $ZAAKREGISTER_GRID_DIR,
 * then grids/ next to this module. In a bundle (tsup, ESM or CJS) "this
 * module" is the bundle file, so the grids must be copied to dist/grids/.
 */
export function gridPath(name: string): string {
  const directory = configuredDirectory ?? process.env[GRID_DIR_ENV] ?? path.join(moduleDirectory(), 'grids');
  return path.join(directory, name);
}

function moduleDirectory(): string {
  // A CJS bundle has __dirname but an empty import.meta; ESM has only import.meta.url.
  if (typeof __dirname === 'string') return __dirname;
  return path.dirname(fileURLToPath(import.meta.url));
}

/** rdcorr2018: latitude and longitude corrections in degrees (longitude positive east), loaded on first use. */
export function rdCorrectionGrid(): DecodedGrid {
  return (rdCorrection ??= loadGrid(RD_CORRECTION_GRID, ARC_SECOND_IN_DEGREES));
}

/** nlgeo2018: quasi-geoid height in metres, loaded on first use. */
export function geoidGrid(): DecodedGrid {
  return (geoid ??= loadGrid(GEOID_GRID, 1));
}

function loadGrid(name: string, scale: number): DecodedGrid {
  const file = gridPath(name);
  try {
    return decodeGrid(readFileSync(file), scale);
  } catch (error) {
    throw new GridUnavailableError(file, error);
  }
}

/**
 * Bilinear interpolation of all bands at (lat, lon) degrees into out[0..bands-1],
 * using the first (finest) level whose node area contains the point. Returns
 * false, leaving `out` untouched, when no level contains it.
 */
export function interpolateGrid(grid: DecodedGrid, lat: number, lon: number, out: Float64Array): boolean {
  const levels = grid.levels;
  for (let k = 0; k < levels.length; k++) {
    if (interpolateLevel(levels[k], grid.header.bands.length, lat, lon, out)) return true;
  }
  return false;
}

function interpolateLevel(level: GridLevel, bands: number, lat: number, lon: number, out: Float64Array): boolean {
  const row = (lat - level.south) / level.latStep;
  const col = (lon - level.west) / level.lonStep;
  const lastRow = level.rows - 1;
  const lastCol = level.cols - 1;
  if (!(row >= 0 && row <= lastRow && col >= 0 && col <= lastCol)) return false;
  // On the northern/eastern edge use the last cell at fraction 1 rather than a cell beyond the grid.
  const i = row < lastRow ? Math.floor(row) : lastRow - 1;
  const j = col < lastCol ? Math.floor(col) : lastCol - 1;
  const u = row - i;
  const v = col - j;
  const values = level.values;
  const sw = (i * level.cols + j) * bands;
  const nw = sw + level.cols * bands;
  for (let b = 0; b < bands; b++) {
    const south = values[sw + b] + v * (values[sw + bands + b] - values[sw + b]);
    const north = values[nw + b] + v * (values[nw + bands + b] - values[nw + b]);
    out[b] = south + u * (north - south);
  }
  return true;
}
