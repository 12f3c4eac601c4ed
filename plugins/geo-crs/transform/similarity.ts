/**
 * 3D similarity (Helmert) transformations of geocentric coordinates:
 * X' = T + M X, with M = (1 + scale) * R precomputed once per parameter set.
 */
export interface SimilarityParameters {
  /** Translations, metres. */
  tx: number;
  ty: number;
  tz: number;
  /** Rotations, radians. */
  rx: number;
  ry: number;
  rz: number;
  /** Scale difference (dimensionless, e.g. -4.07242e-6). */
  scale: number;
}

export interface Similarity {
  readonly tx: number;
  readonly ty: number;
  readonly tz: number;
  /** Row-major 3x3 matrix including the scale factor. */
  readonly m: Float64Array;
}

/**
 * Coordinate-frame convention with the exact (not small-angle) rotation
 * matrix R = R3(rz) R2(ry) R1(rx), as RDNAPTRANS2018 prescribes: with
 * rotations near 1e-5 rad the small-angle form would be off by ~0.5 mm.
 */
export function coordinateFrameSimilarity(p: SimilarityParameters): Similarity {
  const [sa, ca] = [Math.sin(p.rx), Math.cos(p.rx)];
  const [sb, cb] = [Math.sin(p.ry), Math.cos(p.ry)];
  const [sg, cg] = [Math.sin(p.rz), Math.cos(p.rz)];
  const k = 1 + p.scale;
  const m = Float64Array.of(
    cg * cb, cg * sb * sa + sg * ca, -cg * sb * ca + sg * sa,
    -sg * cb, -sg * sb * sa + cg * ca, sg * sb * ca + cg * sa,
    sb, -cb * sa, cb * ca,
  ).map((r) => r * k);
  return { tx: p.tx, ty: p.ty, tz: p.tz, m };
}

/**
 * Position-vector convention with the small-angle matrix, as EPSG defines the
 * time-dependent ITRF/ETRF transformations (rotations of ~1e-7 rad, so the
 * linearisation error is below a micrometre).
 */
export function positionVectorSimilarity(p: SimilarityParameters): Similarity {
  const k = 1 + p.scale;
  const m = Float64Array.of(1, -p.rz, p.ry, p.rz, 1, -p.rx, -p.ry, p.rx, 1).map((r) => r * k);
  return { tx: p.tx, ty: p.ty, tz: p.tz, m };
}

/** out[0..2] = T + M (x, y, z). */
export function applySimilarity(s: Similarity, x: number, y: number, z: number, out: Float64Array): void {
  const m = s.m;
  out[0] = s.tx + m[0] * x + m[1] * y + m[2] * z;
  out[1] = s.ty + m[3] * x + m[4] * y + m[5] * z;
  out[2] = s.tz + m[6] * x + m[7] * y + m[8] * z;
}
