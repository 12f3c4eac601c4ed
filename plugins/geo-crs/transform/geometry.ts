/**
 * Transforming GeoJSON geometries (all seven types) and bounding boxes.
 * Coordinates are in the axis order of their CRS, in and out (so EPSG 4258
 * positions are [lat, lon], CRS84 ones [lon, lat]).
 */
import { InvalidCoordinatesError } from './errors.js';
import { createTransformer, type CrsInput, type TransformOptions, type Transformer } from './transformer.js';

export type Position = number[];
export type Bbox = number[];

interface GeometryBase<T extends string, C> {
  type: T;
  coordinates: C;
  bbox?: Bbox;
}
export type Point = GeometryBase<'Point', Position>;
export type MultiPoint = GeometryBase<'MultiPoint', Position[]>;
export type LineString = GeometryBase<'LineString', Position[]>;
export type MultiLineString = GeometryBase<'MultiLineString', Position[][]>;
export type Polygon = GeometryBase<'Polygon', Position[][]>;
export type MultiPolygon = GeometryBase<'MultiPolygon', Position[][][]>;
export interface GeometryCollection {
  type: 'GeometryCollection';
  geometries: Geometry[];
  bbox?: Bbox;
}
export type Geometry = Point | MultiPoint | LineString | MultiLineString | Polygon | MultiPolygon | GeometryCollection;

/** Nesting depth of `coordinates` per type: 0 is a single position. */
const COORDINATE_DEPTH: Record<string, number> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
};

/**
 * Returns a transformed copy of a geometry; other members are kept, and a
 * `bbox` member is recomputed from the transformed coordinates.
 */
export function transformGeometry<G extends Geometry>(geometry: G, fromCrs: CrsInput, toCrs: CrsInput, options?: TransformOptions): G {
  return transformWith(geometry, transformerFor(fromCrs, toCrs, options)) as G;
}

/** Transformers between CRS definitions, made once: callers transform a page of geometries one by one. */
const transformers = new WeakMap<object, WeakMap<object, Transformer>>();

function transformerFor(fromCrs: CrsInput, toCrs: CrsInput, options?: TransformOptions): Transformer {
  if (options || typeof fromCrs !== 'object' || typeof toCrs !== 'object') return createTransformer(fromCrs, toCrs, options);
  let byTarget = transformers.get(fromCrs);
  if (!byTarget) transformers.set(fromCrs, (byTarget = new WeakMap()));
  let transformer = byTarget.get(toCrs);
  if (!transformer) byTarget.set(toCrs, (transformer = createTransformer(fromCrs, toCrs)));
  return transformer;
}

function transformWith(geometry: Geometry, transformer: Transformer): Geometry {
  if (geometry === null || typeof geometry !== 'object') throw new InvalidCoordinatesError('a geometry must be an object');
  if (geometry.type === 'GeometryCollection') {
    if (!Array.isArray(geometry.geometries)) throw new InvalidCoordinatesError('a GeometryCollection needs a geometries array');
    const geometries = geometry.geometries.map((member) => transformWith(member, transformer));
    const result: GeometryCollection = { ...geometry, geometries };
    if (geometry.bbox !== undefined) result.bbox = extentOf(geometries.flatMap(allPositions), geometry.bbox.length);
    return result;
  }
  const depth = COORDINATE_DEPTH[(geometry as { type: unknown }).type as string];
  if (depth === undefined) throw new InvalidCoordinatesError(`unknown geometry type ${JSON.stringify((geometry as { type: unknown }).type)}`);
  const coordinates = mapPositions(geometry.coordinates, depth, transformer);
  const result = { ...geometry, coordinates } as Geometry;
  if (geometry.bbox !== undefined) result.bbox = extentOf(allPositions(result), geometry.bbox.length);
  return result;
}

function mapPositions(value: unknown, depth: number, transformer: Transformer): unknown {
  if (depth === 0) return transformer.transform(value as Position);
  if (!Array.isArray(value)) throw new InvalidCoordinatesError(`expected an array of ${depth === 1 ? 'positions' : 'arrays'}, got ${JSON.stringify(value)}`);
  return value.map((item) => mapPositions(item, depth - 1, transformer));
}

function allPositions(geometry: Geometry): Position[] {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.flatMap(allPositions);
  const depth = COORDINATE_DEPTH[geometry.type];
  return depth === 0 ? [geometry.coordinates as Position] : (geometry.coordinates as unknown[]).flat(depth - 1) as Position[];
}

/** GeoJSON bbox of positions: [min..., max...] over 2 (or 3 when asked and present) ordinates. */
function extentOf(positions: Position[], length: number): Bbox {
  const dims = length >= 6 && positions.every((p) => p.length > 2) ? 3 : 2;
  const min = new Array<number>(dims).fill(Infinity);
  const max = new Array<number>(dims).fill(-Infinity);
  for (const p of positions) {
    for (let d = 0; d < dims; d++) {
      min[d] = Math.min(min[d], p[d]);
      max[d] = Math.max(max[d], p[d]);
    }
  }
  return [...min, ...max];
}

/** Samples per box edge; with the curvature allowance below this bounds the box from outside. */
const EDGE_SEGMENTS = 64;
/** Samples per side of the grid used for the height range of a 3D box. */
const HEIGHT_SAMPLES = 33;

/**
 * Transforms a bounding box [minA, minB, maxA, maxB] (or the 6-number form
 * [minA, minB, minH, maxA, maxB, maxH]) given in the source CRS's axis order
 * into the box, in the target CRS's axis order, that contains the transformed
 * box. The outline is sampled densely and each sampled range is widened by a
 * bound on how far the curve can bulge between samples, so the result
 * contains the true transformed box. Boxes crossing the antimeridian
 * (minA > maxA) are not supported.
 */
export function transformBbox(bbox: Bbox, fromCrs: CrsInput, toCrs: CrsInput, options?: TransformOptions): Bbox {
  if (!Array.isArray(bbox) || (bbox.length !== 4 && bbox.length !== 6) || !bbox.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new InvalidCoordinatesError(`a bbox is 4 or 6 finite numbers, got ${JSON.stringify(bbox)}`);
  }
  const is3d = bbox.length === 6;
  const [minA, minB, maxA, maxB] = is3d ? [bbox[0], bbox[1], bbox[3], bbox[4]] : bbox;
  if (minA > maxA || minB > maxB) throw new InvalidCoordinatesError(`bbox minimum exceeds maximum: ${JSON.stringify(bbox)}`);
  const transformer = createTransformer(fromCrs, toCrs, options);
  const out = new Float64Array(3);

  const result = [Infinity, Infinity, -Infinity, -Infinity];
  const corners: [number, number][] = [[minA, minB], [maxA, minB], [maxA, maxB], [minA, maxB]];
  for (let edge = 0; edge < 4; edge++) {
    const [a0, b0] = corners[edge];
    const [a1, b1] = corners[(edge + 1) % 4];
    const edgeA: number[] = [];
    const edgeB: number[] = [];
    for (let k = 0; k <= EDGE_SEGMENTS; k++) {
      const t = k / EDGE_SEGMENTS;
      transformer.transformInto(a0 + (a1 - a0) * t, b0 + (b1 - b0) * t, NaN, out);
      edgeA.push(out[0]);
      edgeB.push(out[1]);
    }
    const [lowA, highA] = boundingRange(edgeA);
    const [lowB, highB] = boundingRange(edgeB);
    result[0] = Math.min(result[0], lowA);
    result[1] = Math.min(result[1], lowB);
    result[2] = Math.max(result[2], highA);
    result[3] = Math.max(result[3], highB);
  }
  if (!is3d) return result;
  const [minH, maxH] = heightRange(transformer, minA, minB, maxA, maxB, bbox[2], bbox[5]);
  return [result[0], result[1], minH, result[2], result[3], maxH];
}

/**
 * Range of a smooth curve known by equally spaced samples. Between two
 * samples the curve leaves its chord by at most |f''| s^2 / 8, and the second
 * difference estimates f'' s^2; only concave stretches can rise above their
 * samples and only convex ones dip below. The allowance is doubled for safety.
 */
function boundingRange(samples: number[]): [number, number] {
  const n = samples.length;
  const secondDifference = (k: number): number => {
    const i = Math.min(Math.max(k, 1), n - 2);
    return samples[i - 1] - 2 * samples[i] + samples[i + 1];
  };
  let low = Math.min(...samples);
  let high = Math.max(...samples);
  for (let k = 0; k < n - 1; k++) {
    const c1 = secondDifference(k);
    const c2 = secondDifference(k + 1);
    high = Math.max(high, Math.max(samples[k], samples[k + 1]) + Math.max(0, -Math.min(c1, c2)) / 4);
    low = Math.min(low, Math.min(samples[k], samples[k + 1]) - Math.max(0, Math.max(c1, c2)) / 4);
  }
  return [low, high];
}

/**
 * Height range of a 3D box: the height shift depends on the horizontal
 * position (geoid, Helmert) and its extremes may lie inside the box, so the
 * whole box is sampled on a grid, bounded along rows and columns like the outline.
 */
function heightRange(transformer: Transformer, minA: number, minB: number, maxA: number, maxB: number, minH: number, maxH: number): [number, number] {
  const out = new Float64Array(3);
  let low = Infinity;
  let high = -Infinity;
  for (const h of [minH, maxH]) {
    const rows: number[][] = [];
    for (let i = 0; i < HEIGHT_SAMPLES; i++) {
      const row: number[] = [];
      for (let j = 0; j < HEIGHT_SAMPLES; j++) {
        const a = minA + ((maxA - minA) * i) / (HEIGHT_SAMPLES - 1);
        const b = minB + ((maxB - minB) * j) / (HEIGHT_SAMPLES - 1);
        transformer.transformInto(a, b, h, out);
        row.push(out[2]);
      }
      rows.push(row);
    }
    for (let k = 0; k < HEIGHT_SAMPLES; k++) {
      for (const line of [rows[k], rows.map((row) => row[k])]) {
        const [lineLow, lineHigh] = boundingRange(line);
        low = Math.min(low, lineLow);
        high = Math.max(high, lineHigh);
      }
    }
  }
  return [low, high];
}
