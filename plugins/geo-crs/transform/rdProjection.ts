/**
 * The RD map projection: oblique stereographic on the Bessel 1841 ellipsoid
 * (EPSG method 9809, the "double projection": Gauss conformal ellipsoid ->
 * sphere, then stereographic sphere -> plane). Angles in radians.
 */
import { BESSEL_1841 } from './ellipsoid.js';

const DEG = Math.PI / 180;
// 52 09 22.178 N, 5 23 15.500 E, in the rounded decimal degrees NSGI computes
// with: the exact sexagesimal values shift RD y by a systematic 0.05 mm against Z001.
const LAT0 = 52.156160556 * DEG;
const LON0 = 5.387638889 * DEG;
const K0 = 0.9999079;
const FALSE_EASTING = 155000;
const FALSE_NORTHING = 463000;

const E2 = BESSEL_1841.e2;
const E = Math.sqrt(E2);
const SIN_LAT0 = Math.sin(LAT0);
const COS_LAT0 = Math.cos(LAT0);
/** Radius of the Gauss conformal sphere: geometric mean of the principal radii at the origin. */
const SPHERE_RADIUS = (BESSEL_1841.a * Math.sqrt(1 - E2)) / (1 - E2 * SIN_LAT0 * SIN_LAT0);
const N = Math.sqrt(1 + (E2 * COS_LAT0 ** 4) / (1 - E2));
/** Latitude of the origin on the sphere. */
const SPHERE_LAT0 = Math.asin(SIN_LAT0 / N);
const SIN_SPHERE_LAT0 = Math.sin(SPHERE_LAT0);
const COS_SPHERE_LAT0 = Math.cos(SPHERE_LAT0);
/** Offset making the Gauss mapping send LAT0 to SPHERE_LAT0. */
const M = Math.atanh(SIN_SPHERE_LAT0) - N * isometricLatitude(SIN_LAT0);
const TWO_K_R = 2 * K0 * SPHERE_RADIUS;

/** Isometric latitude of the ellipsoid, from sin(latitude). */
function isometricLatitude(sinLat: number): number {
  return Math.atanh(sinLat) - E * Math.atanh(E * sinLat);
}

/** out[0], out[1] = RD x, y (metres) of Bessel latitude/longitude (radians). */
export function rdForward(lat: number, lon: number, out: Float64Array): void {
  // Ellipsoid -> conformal sphere: sin(sphereLat) = tanh(n * q + m).
  const sinS = Math.tanh(N * isometricLatitude(Math.sin(lat)) + M);
  const cosS = Math.sqrt(1 - sinS * sinS);
  const dLon = N * (lon - LON0);
  const cosDLon = Math.cos(dLon);
  // Sphere -> plane: stereographic from the point opposite the origin.
  const scale = TWO_K_R / (1 + sinS * SIN_SPHERE_LAT0 + cosS * COS_SPHERE_LAT0 * cosDLon);
  out[0] = FALSE_EASTING + scale * cosS * Math.sin(dLon);
  out[1] = FALSE_NORTHING + scale * (sinS * COS_SPHERE_LAT0 - cosS * SIN_SPHERE_LAT0 * cosDLon);
}

// 1e-15 on sin(latitude) is ~2e-15 rad here, far below a micrometre.
const SIN_LATITUDE_TOLERANCE = 1e-15;

/** out[0], out[1] = Bessel latitude, longitude (radians) of RD x, y (metres). */
export function rdInverse(x: number, y: number, out: Float64Array): void {
  const dx = x - FALSE_EASTING;
  const dy = y - FALSE_NORTHING;
  const r = Math.sqrt(dx * dx + dy * dy);
  // Angular distance from the origin on the sphere, and the direction (azimuth) towards the point.
  const psi = 2 * Math.atan(r / TWO_K_R);
  const sinPsi = Math.sin(psi);
  const cosPsi = Math.cos(psi);
  const sinAz = r > 0 ? dx / r : 0;
  const cosAz = r > 0 ? dy / r : 1;
  const sinS = cosPsi * SIN_SPHERE_LAT0 + cosAz * sinPsi * COS_SPHERE_LAT0;
  const dLonSphere = Math.atan2(sinAz * sinPsi, cosPsi * COS_SPHERE_LAT0 - cosAz * sinPsi * SIN_SPHERE_LAT0);
  // Sphere -> ellipsoid: with q the isometric latitude, sin(lat) solves
  // s = tanh(q + e atanh(e s)). Newton's method on s converges in about three steps.
  const q = (Math.atanh(sinS) - M) / N;
  let s = Math.tanh(q);
  for (let i = 0; i < 20; i++) {
    const t = Math.tanh(q + E * Math.atanh(E * s));
    const step = (s - t) / (1 - ((1 - t * t) * E2) / (1 - E2 * s * s));
    s -= step;
    if (Math.abs(step) < SIN_LATITUDE_TOLERANCE) break;
  }
  const lat = Math.asin(s);
  out[0] = lat;
  out[1] = LON0 + dLonSphere / N;
}
