import type { Knex } from 'knex';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import Envelope from 'jsts/org/locationtech/jts/geom/Envelope.js';
import RelateOp from 'jsts/org/locationtech/jts/operation/relate/RelateOp.js';
import { ProblemError, invalidParam } from '../../src/plugin-api.js';
import { CrsError, createTransformer, transformBbox, transformGeometry, type CrsDefinition, type Geometry, type Position } from './transform/index.js';
import { reader } from './geometry-validation.js';

const factory = new GeometryFactory();

/** A box as [minx, miny, maxx, maxy] in the axis order of its CRS. */
export type Box = [number, number, number, number];

/** Where the first axis wraps around the antimeridian: lon-lat CRSs and Pseudo-Mercator. */
function wrapLimit(crs: CrsDefinition): number | undefined {
  if (crs.kind === 'lon-lat') return 180;
  if (crs.kind === 'pseudo-mercator') return 20037508.342789244;
  return undefined;
}

/**
 * The `bbox` parameter (OGC API Features): 4 numbers, or 6 with heights (ignored: the test is 2D).
 * Returns one box, or two when it crosses the antimeridian (minx > maxx in a wrapping CRS).
 */
export function parseBbox(text: string, crs: CrsDefinition): Box[] {
  const parts = text.split(',').map((part) => part.trim());
  const numbers = parts.map((part) => (part === '' ? NaN : Number(part)));
  if ((parts.length !== 4 && parts.length !== 6) || numbers.some((n) => !Number.isFinite(n))) {
    throw invalidParam('bbox', 'invalid-bbox', 'Een bbox bestaat uit 4 of 6 getallen, gescheiden door komma\'s: minx,miny,maxx,maxy.');
  }
  const [minx, miny, maxx, maxy] = parts.length === 4 ? numbers : [numbers[0], numbers[1], numbers[3], numbers[4]];
  if (miny > maxy) throw invalidParam('bbox', 'invalid-bbox', 'De ondergrens van de bbox ligt boven de bovengrens.');
  if (minx <= maxx) return [[minx, miny, maxx, maxy]];
  const limit = wrapLimit(crs);
  if (limit === undefined) throw invalidParam('bbox', 'invalid-bbox', 'De ondergrens van de bbox ligt rechts van de bovengrens.');
  return [
    [minx, miny, limit, maxy],
    [-limit, miny, maxx, maxy],
  ];
}

/** The extent of a geometry's positions (first two ordinates); undefined for one without positions. */
export function extentOf(geometry: Geometry): Box | undefined {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (value: unknown): void => {
    if (!Array.isArray(value)) return;
    if (typeof value[0] === 'number') {
      const [x, y] = value as Position;
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    } else value.forEach(visit);
  };
  const walk = (g: Geometry): void => (g.type === 'GeometryCollection' ? g.geometries.forEach(walk) : visit(g.coordinates));
  walk(geometry);
  return Number.isFinite(box[0]) ? box : undefined;
}

/** A box as PostgreSQL `box` input. */
export const boxLiteral = (box: Box): string => `(${box[0]},${box[1]}),(${box[2]},${box[3]})`;

/** Segments per box edge when tracing its outline in another CRS (the edges curve there). */
const EDGE_SEGMENTS = 16;

/**
 * An axis-aligned box in `to` lying wholly inside the area `box` (in `from`) covers: a geometry whose
 * extent lies in it intersects `box` for sure, without reading it. Each side is the innermost point
 * of the traced edge it faces, pulled in by twice the largest bulge of a traced segment (its midpoint's
 * distance from the chord: the curve between samples) plus a millionth of the size (rounding).
 * Undefined when no such box is found.
 */
export function innerBox(box: Box, from: CrsDefinition, to: CrsDefinition): Box | undefined {
  if (from === to) return box;
  const transformer = createTransformer(from, to);
  const out = new Float64Array(3);
  const at = (x: number, y: number): [number, number] => {
    transformer.transformInto(x, y, NaN, out);
    return [out[0], out[1]];
  };
  const [minx, miny, maxx, maxy] = box;
  const corners = [[minx, miny], [maxx, miny], [maxx, maxy], [minx, maxy]];
  let edges: [number, number][][];
  let centre: [number, number];
  try {
    centre = at((minx + maxx) / 2, (miny + maxy) / 2);
    // Samples at every half segment: the even ones trace the edge, the odd ones measure its bulge.
    edges = corners.map(([x0, y0], i) => {
      const [x1, y1] = corners[(i + 1) % 4];
      const steps = 2 * EDGE_SEGMENTS;
      return Array.from({ length: steps + 1 }, (_, k) => at(x0 + ((x1 - x0) * k) / steps, y0 + ((y1 - y0) * k) / steps));
    });
  } catch (error) {
    if (error instanceof CrsError) return undefined;
    throw error;
  }
  const inner: Box = [-Infinity, -Infinity, Infinity, Infinity];
  let bulge = 0;
  for (const edge of edges) {
    for (let k = 1; k < edge.length; k += 2) {
      bulge = Math.max(bulge, Math.abs(edge[k][0] - (edge[k - 1][0] + edge[k + 1][0]) / 2), Math.abs(edge[k][1] - (edge[k - 1][1] + edge[k + 1][1]) / 2));
    }
    const dx = edge.reduce((sum, p) => sum + p[0], 0) / edge.length - centre[0];
    const dy = edge.reduce((sum, p) => sum + p[1], 0) / edge.length - centre[1];
    const xs = edge.map((p) => p[0]);
    const ys = edge.map((p) => p[1]);
    if (Math.abs(dx) > Math.abs(dy)) {
      if (dx < 0) inner[0] = Math.max(inner[0], ...xs);
      else inner[2] = Math.min(inner[2], ...xs);
    } else if (dy < 0) inner[1] = Math.max(inner[1], ...ys);
    else inner[3] = Math.min(inner[3], ...ys);
  }
  const mx = 2 * bulge + (inner[2] - inner[0]) * 1e-6;
  const my = 2 * bulge + (inner[3] - inner[1]) * 1e-6;
  const shrunk: Box = [inner[0] + mx, inner[1] + my, inner[2] - mx, inner[3] - my];
  return shrunk.every(Number.isFinite) && shrunk[0] < shrunk[2] && shrunk[1] < shrunk[3] ? shrunk : undefined;
}

export interface BboxSearch {
  boxes: Box[];
  crs: CrsDefinition;
  storageCrs: CrsDefinition;
  /** More candidates than this (from the index) is refused: the box is too large. */
  maxCandidates: number;
}

/**
 * The ids of the zaken whose geometry intersects the box: candidates from the GiST index on
 * `zaakgeometrie_bbox` (box overlap, in the storage CRS). A candidate whose box lies inside the
 * box's inner box in the storage CRS intersects: its row is not even read. Only the others' geometry
 * is read, and tested exactly (JTS) in the box's own CRS.
 */
export async function zakenInBbox(db: Knex, search: BboxSearch): Promise<number[]> {
  const { boxes, crs, storageCrs, maxCandidates } = search;
  const stored = boxes.map((box) => {
    try {
      return crs === storageCrs ? box : (transformBbox(box, crs, storageCrs) as Box);
    } catch (error) {
      if (!(error instanceof CrsError)) throw error;
      throw invalidParam('bbox', 'coordinates-out-of-bounds', `De bbox ligt (deels) buiten het geldigheidsgebied van ${crs.name}.`);
    }
  });
  const inner = boxes.map((box) => innerBox(box, crs, storageCrs)).filter((box): box is Box => box !== undefined);
  const settled = inner.length ? inner.map(() => 'zaakgeometrie_bbox <@ ?::box').join(' or ') : 'false';
  // Index-only (the index includes the id): no row is read for the candidates' ids and boxes.
  const query = db('zaak').select('id', db.raw(`${settled} as settled`, inner.map(boxLiteral)));
  query.where((where) => {
    for (const box of stored) where.orWhereRaw('zaakgeometrie_bbox && ?::box', [boxLiteral(box)]);
  });
  const candidates = (await query.limit(maxCandidates + 1)) as { id: number; settled: boolean }[];
  if (candidates.length > maxCandidates) {
    throw new ProblemError('bbox-too-large', { detail: `De bbox omvat meer dan ${maxCandidates} zaken; kies een kleinere bbox.` });
  }
  const open = candidates.filter((candidate) => !candidate.settled).map((candidate) => candidate.id);
  const undecided = open.length ? ((await db('zaak').whereIn('id', open).select('id', 'zaakgeometrie')) as { id: number; zaakgeometrie: Geometry }[]) : [];
  const areas = boxes.map((box) => factory.toGeometry(new Envelope(box[0], box[2], box[1], box[3])));
  const intersecting = undecided.filter(({ zaakgeometrie }) => {
    let geometry: Geometry;
    try {
      geometry = crs === storageCrs ? zaakgeometrie : transformGeometry(zaakgeometrie, storageCrs, crs);
    } catch (error) {
      // A geometry that cannot be expressed in the box's CRS lies outside its area, so outside the box.
      if (error instanceof CrsError) return false;
      throw error;
    }
    const shape = reader.read(geometry);
    return areas.some((area) => RelateOp.relate(shape, area).isIntersects());
  });
  return [...candidates.filter((candidate) => candidate.settled), ...intersecting].map((candidate) => candidate.id).sort((a, b) => a - b);
}
