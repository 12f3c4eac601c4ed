/**
 * ITRF2014 <-> ETRF2000 (the realisation of ETRS89 used in the Netherlands):
 * EPSG transformation 8405, the EUREF 14-parameter time-dependent Helmert
 * transformation (position-vector convention, reference epoch 2010.0).
 * Both sides hold coordinates at the same coordinate epoch.
 */
import { positionVectorSimilarity, type Similarity } from './similarity.js';

const MM = 1e-3;
const MAS = ((1e-3 / 3600) * Math.PI) / 180;
const PPB = 1e-9;
const REFERENCE_EPOCH = 2010.0;

/**
 * Coordinate epoch used when the caller gives none: the parameters' reference
 * epoch, so results are reproducible. Callers with measured ITRF2014 data
 * should pass the real epoch (the frames drift apart ~2.5 cm a year).
 */
export const DEFAULT_COORDINATE_EPOCH = REFERENCE_EPOCH;

const AT_REFERENCE = { tx: 54.7 * MM, ty: 52.2 * MM, tz: -74.1 * MM, rx: 1.701 * MAS, ry: 10.29 * MAS, rz: -16.632 * MAS, scale: 2.12 * PPB };
const PER_YEAR = { tx: 0.1 * MM, ty: 0.1 * MM, tz: -1.9 * MM, rx: 0.081 * MAS, ry: 0.49 * MAS, rz: -0.792 * MAS, scale: 0.11 * PPB };

export interface ItrfTransforms {
  toEtrf2000: Similarity;
  fromEtrf2000: Similarity;
}

const cache = new Map<number, ItrfTransforms>();

/** Both directions at a coordinate epoch (decimal year). */
export function itrf2014Transforms(epoch: number): ItrfTransforms {
  let transforms = cache.get(epoch);
  if (transforms === undefined) {
    const dt = epoch - REFERENCE_EPOCH;
    const p = {
      tx: AT_REFERENCE.tx + PER_YEAR.tx * dt,
      ty: AT_REFERENCE.ty + PER_YEAR.ty * dt,
      tz: AT_REFERENCE.tz + PER_YEAR.tz * dt,
      rx: AT_REFERENCE.rx + PER_YEAR.rx * dt,
      ry: AT_REFERENCE.ry + PER_YEAR.ry * dt,
      rz: AT_REFERENCE.rz + PER_YEAR.rz * dt,
      scale: AT_REFERENCE.scale + PER_YEAR.scale * dt,
    };
    // Negating the parameters inverts this transformation to well under a micrometre (second-order terms of ~1e-7).
    const negated = { tx: -p.tx, ty: -p.ty, tz: -p.tz, rx: -p.rx, ry: -p.ry, rz: -p.rz, scale: -p.scale };
    transforms = { toEtrf2000: positionVectorSimilarity(p), fromEtrf2000: positionVectorSimilarity(negated) };
    if (cache.size > 64) cache.clear();
    cache.set(epoch, transforms);
  }
  return transforms;
}
