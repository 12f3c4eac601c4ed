/**
 * RDNAPTRANS2018, implementation variant 1 (NSGI): ETRS89 <-> RD (EPSG 28992)
 * and ellipsoidal height <-> NAP, validated to 1 mm against NSGI's Z001 file.
 *
 * ETRS89 -> RD: GRS80 geocentric at a fixed height of 43 m -> 3D similarity ->
 * Bessel geographic ("pseudo RD Bessel") -> subtract the rdcorr2018 correction,
 * iterated because the grid is indexed by the corrected position -> oblique
 * stereographic projection. NAP = h - N, N from nlgeo2018 at the ETRS89 position.
 * RD -> ETRS89 runs the steps backwards with the published inverse similarity
 * and a Bessel height of 0 m; h = NAP + N.
 *
 * Degrees in and out. Results go into a caller-owned Float64Array; the
 * functions return false (and leave nothing meaningful in `out`) when the point
 * lies outside the area of the grids.
 */
import { BESSEL_1841, GRS80, geocentricToGeographic, geographicToGeocentric } from './ellipsoid.js';
import { geoidGrid, interpolateGrid, rdCorrectionGrid } from './grid.js';
import { rdForward, rdInverse } from './rdProjection.js';
import { applySimilarity, coordinateFrameSimilarity } from './similarity.js';

const DEG = Math.PI / 180;

/** ETRS89 area covered by both grids (nlgeo2018 nodes span exactly this box). */
export const RDNAPTRANS_AREA = { south: 50, west: 2, north: 56, east: 8 } as const;
/**
 * Rounding allowance at the edges of the area (1e-8 degrees, about 1 mm): a
 * point published on the edge must survive a round trip. It is no
 * extrapolation: the geoid is evaluated at the clamped edge position.
 */
const EDGE_TOLERANCE = 1e-8;

const ARC_SECOND = Math.PI / 180 / 3600;
// NSGI's parameters with the rotations in arc-seconds (as in PROJ's pipeline);
// they fit Z001 slightly better than the rounded radian values.
const ETRS89_TO_RD_BESSEL = coordinateFrameSimilarity({
  tx: -565.7346, ty: -50.4058, tz: -465.2895,
  rx: -0.395023 * ARC_SECOND, ry: 0.330776 * ARC_SECOND, rz: -1.876073 * ARC_SECOND,
  scale: -4.07242e-6,
});
const RD_BESSEL_TO_ETRS89 = coordinateFrameSimilarity({
  tx: 565.7381, ty: 50.4018, tz: 465.2904,
  rx: 0.395026 * ARC_SECOND, ry: -0.330772 * ARC_SECOND, rz: 1.876074 * ARC_SECOND,
  scale: 4.07244e-6,
});
/** The 2D procedure fixes the ETRS89 height (ETRS89 -> RD) and the Bessel height (RD -> ETRS89). */
const FIXED_ETRS89_HEIGHT = 43;
const FIXED_BESSEL_HEIGHT = 0;
/** Convergence of the inverse correction, degrees (NSGI's criterion). */
const CORRECTION_TOLERANCE = 1e-9;
const MAX_CORRECTION_ITERATIONS = 20;

const scratch = new Float64Array(3);
const correction = new Float64Array(2);
const geoidValue = new Float64Array(1);

/** Forces loading both grids now (e.g. at startup) instead of at the first transformation. */
export function loadRdnaptransGrids(): void {
  rdCorrectionGrid();
  geoidGrid();
}

/** True when an ETRS89 position (degrees) is inside the RDNAPTRANS2018 area. */
export function inRdnaptransArea(lat: number, lon: number): boolean {
  return (
    lat >= RDNAPTRANS_AREA.south - EDGE_TOLERANCE &&
    lat <= RDNAPTRANS_AREA.north + EDGE_TOLERANCE &&
    lon >= RDNAPTRANS_AREA.west - EDGE_TOLERANCE &&
    lon <= RDNAPTRANS_AREA.east + EDGE_TOLERANCE
  );
}

/** Quasi-geoid height N (metres) of nlgeo2018 at an ETRS89 position inside the area. */
export function geoidHeight(lat: number, lon: number): number {
  const clampedLat = Math.min(Math.max(lat, RDNAPTRANS_AREA.south), RDNAPTRANS_AREA.north);
  const clampedLon = Math.min(Math.max(lon, RDNAPTRANS_AREA.west), RDNAPTRANS_AREA.east);
  interpolateGrid(geoidGrid(), clampedLat, clampedLon, geoidValue);
  return geoidValue[0];
}

/**
 * rdcorr2018 correction (degrees) at a real RD Bessel position into
 * correction[0..1]. NSGI defines the correction as zero outside the grid
 * (whose border values are zero); that only matters within ~150 m of the
 * edge, since callers first restrict positions to RDNAPTRANS_AREA.
 */
function correctionAt(lat: number, lon: number): void {
  if (!interpolateGrid(rdCorrectionGrid(), lat, lon, correction)) {
    correction[0] = 0;
    correction[1] = 0;
  }
}

/**
 * ETRS89 (lat, lon degrees; h metres or NaN) -> out = [RD x, RD y, NAP or NaN].
 * Returns false outside the area.
 */
export function etrs89ToRd(lat: number, lon: number, h: number, out: Float64Array): boolean {
  if (!inRdnaptransArea(lat, lon)) return false;
  geographicToGeocentric(GRS80, lat * DEG, lon * DEG, FIXED_ETRS89_HEIGHT, scratch);
  applySimilarity(ETRS89_TO_RD_BESSEL, scratch[0], scratch[1], scratch[2], scratch);
  geocentricToGeographic(BESSEL_1841, scratch[0], scratch[1], scratch[2], scratch);
  const pseudoLat = scratch[0] / DEG;
  const pseudoLon = scratch[1] / DEG;
  // The grid is indexed by the real (corrected) position, so solve real = pseudo - corr(real).
  let realLat = pseudoLat;
  let realLon = pseudoLon;
  for (let i = 0; i < MAX_CORRECTION_ITERATIONS; i++) {
    correctionAt(realLat, realLon);
    const nextLat = pseudoLat - correction[0];
    const nextLon = pseudoLon - correction[1];
    const converged = Math.abs(nextLat - realLat) < CORRECTION_TOLERANCE && Math.abs(nextLon - realLon) < CORRECTION_TOLERANCE;
    realLat = nextLat;
    realLon = nextLon;
    if (converged) break;
  }
  rdForward(realLat * DEG, realLon * DEG, out);
  out[2] = Number.isNaN(h) ? NaN : h - geoidHeight(lat, lon);
  return true;
}

/**
 * RD (x, y metres; NAP metres or NaN) -> out = [lat, lon degrees, h or NaN].
 * Returns false when the result falls outside the area.
 */
export function rdToEtrs89(x: number, y: number, nap: number, out: Float64Array): boolean {
  rdInverse(x, y, scratch);
  const realLat = scratch[0] / DEG;
  const realLon = scratch[1] / DEG;
  // Far-away input would only waste work (and may not even invert to a finite position).
  if (!(Math.abs(realLat - 53) < 4 && Math.abs(realLon - 5) < 4)) return false;
  correctionAt(realLat, realLon);
  geographicToGeocentric(BESSEL_1841, (realLat + correction[0]) * DEG, (realLon + correction[1]) * DEG, FIXED_BESSEL_HEIGHT, scratch);
  applySimilarity(RD_BESSEL_TO_ETRS89, scratch[0], scratch[1], scratch[2], scratch);
  geocentricToGeographic(GRS80, scratch[0], scratch[1], scratch[2], scratch);
  const lat = scratch[0] / DEG;
  const lon = scratch[1] / DEG;
  if (!inRdnaptransArea(lat, lon)) return false;
  out[0] = lat;
  out[1] = lon;
  out[2] = Number.isNaN(nap) ? NaN : nap + geoidHeight(lat, lon);
  return true;
}
