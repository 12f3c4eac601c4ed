/**
 * Ellipsoids and the conversion between geographic (latitude, longitude,
 * ellipsoidal height) and geocentric Cartesian coordinates. Angles in radians.
 * Functions write into a caller-owned Float64Array so the hot path allocates nothing.
 */
export interface Ellipsoid {
  readonly a: number;
  /** First eccentricity squared. */
  readonly e2: number;
}

function ellipsoid(a: number, inverseFlattening: number): Ellipsoid {
  const f = 1 / inverseFlattening;
  return { a, e2: f * (2 - f) };
}

export const GRS80 = ellipsoid(6378137, 298.257222101);
export const BESSEL_1841 = ellipsoid(6377397.155, 299.1528128);

/** out[0..2] = X, Y, Z (metres). */
export function geographicToGeocentric(ell: Ellipsoid, lat: number, lon: number, h: number, out: Float64Array): void {
  const sinLat = Math.sin(lat);
  const cosLat = Math.cos(lat);
  const n = ell.a / Math.sqrt(1 - ell.e2 * sinLat * sinLat);
  out[0] = (n + h) * cosLat * Math.cos(lon);
  out[1] = (n + h) * cosLat * Math.sin(lon);
  out[2] = (n * (1 - ell.e2) + h) * sinLat;
}

// 1e-13 rad is 0.6 micrometre on the ellipsoid, far below the 1 mm target.
const LATITUDE_TOLERANCE = 1e-13;

/** out[0..2] = latitude, longitude (radians), ellipsoidal height (metres). */
export function geocentricToGeographic(ell: Ellipsoid, x: number, y: number, z: number, out: Float64Array): void {
  const p = Math.sqrt(x * x + y * y);
  // Bowring's estimate (parametric latitude) is already within ~1e-10 rad near
  // the surface; the fixed-point iteration of RDNAPTRANS2018 then converges in one or two steps.
  const b = ell.a * Math.sqrt(1 - ell.e2);
  const parametric = Math.atan2(z * ell.a, p * b);
  const sinU = Math.sin(parametric);
  const cosU = Math.cos(parametric);
  let lat = Math.atan2(z + (ell.e2 / (1 - ell.e2)) * b * sinU * sinU * sinU, p - ell.e2 * ell.a * cosU * cosU * cosU);
  for (let i = 0; i < 20; i++) {
    const sinLat = Math.sin(lat);
    const n = ell.a / Math.sqrt(1 - ell.e2 * sinLat * sinLat);
    const next = Math.atan2(z + ell.e2 * n * sinLat, p);
    const done = Math.abs(next - lat) < LATITUDE_TOLERANCE;
    lat = next;
    if (done) break;
  }
  const sinLat = Math.sin(lat);
  out[0] = lat;
  out[1] = Math.atan2(y, x);
  // Height formula that stays well-conditioned at every latitude.
  out[2] = p * Math.cos(lat) + z * sinLat - ell.a * Math.sqrt(1 - ell.e2 * sinLat * sinLat);
}
