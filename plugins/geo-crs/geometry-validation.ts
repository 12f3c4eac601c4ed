import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import IsValidOp from 'jsts/org/locationtech/jts/operation/valid/IsValidOp.js';
import TopologyValidationError from 'jsts/org/locationtech/jts/operation/valid/TopologyValidationError.js';
import type { InvalidParam } from '../../src/plugin-api.js';
import { isInArea } from './transform/crs.js';
import { CrsError, createTransformer, type CrsDefinition, type Geometry, type Position } from './transform/index.js';
import { CRS84 } from './crs-negotiation.js';

export const reader = new GeoJSONReader(undefined as never);

/** Dutch reasons per JTS validation error type (`TopologyValidationError.errMsg` is English). */
const REASONS: Record<number, string> = {
  [TopologyValidationError.REPEATED_POINT]: 'herhaald punt',
  [TopologyValidationError.HOLE_OUTSIDE_SHELL]: 'gat buiten de buitenring',
  [TopologyValidationError.NESTED_HOLES]: 'geneste gaten',
  [TopologyValidationError.DISCONNECTED_INTERIOR]: 'binnengebied is niet samenhangend',
  [TopologyValidationError.SELF_INTERSECTION]: 'zelfdoorsnijding',
  [TopologyValidationError.RING_SELF_INTERSECTION]: 'ring snijdt zichzelf',
  [TopologyValidationError.NESTED_SHELLS]: 'geneste buitenringen',
  [TopologyValidationError.DUPLICATE_RINGS]: 'dubbele ringen',
  [TopologyValidationError.TOO_FEW_POINTS]: 'te weinig punten',
  [TopologyValidationError.INVALID_COORDINATE]: 'ongeldige coördinaat',
  [TopologyValidationError.RING_NOT_CLOSED]: 'ring is niet gesloten',
};

/** Every position of a geometry, with the JSON path of its geometry. */
function* positionsOf(geometry: Geometry, path: string): Generator<[Position, string]> {
  if (geometry.type === 'GeometryCollection') {
    for (const [i, member] of geometry.geometries.entries()) yield* positionsOf(member, `${path}.geometries.${i}`);
    return;
  }
  const walk = function* (value: unknown, at: string): Generator<[Position, string]> {
    if (Array.isArray(value) && typeof value[0] === 'number') yield [value as Position, at];
    else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* walk(item, `${at}.${i}`);
  };
  yield* walk(geometry.coordinates, `${path}.coordinates`);
}

/** Positions outside the CRS's area of use (checked in geographic coordinates). The first is enough to refuse. */
function outOfArea(geometry: Geometry, crs: CrsDefinition, path: string): InvalidParam | undefined {
  const toGeographic = createTransformer(crs, CRS84);
  for (const [position, at] of positionsOf(geometry, path)) {
    let inside: boolean;
    try {
      const [lon, lat] = toGeographic.transform(position);
      inside = Number.isFinite(lon) && Number.isFinite(lat) && isInArea(crs.area, lat, lon);
    } catch (error) {
      if (!(error instanceof CrsError)) throw error;
      inside = false;
    }
    if (!inside) {
      return { name: at, code: 'coordinates-out-of-bounds', reason: `De coördinaat (${position.join(', ')}) ligt buiten het geldigheidsgebied van ${crs.name} (${crs.uri}).` };
    }
  }
  return undefined;
}

/** The JTS validity of one geometry (a collection: of each member, for the path). */
function topologyErrors(geometry: Geometry, path: string): InvalidParam[] {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.flatMap((member, i) => topologyErrors(member, `${path}.geometries.${i}`));
  let error: TopologyValidationError | null;
  try {
    error = new IsValidOp(reader.read(geometry)).getValidationError();
  } catch (thrown) {
    // JTS refuses some shapes while reading them (an unclosed ring, a ring of fewer than 4 points).
    return [{ name: path, code: 'invalid-geometry', reason: `Ongeldige geometrie: ${(thrown as Error).message}.` }];
  }
  if (!error) return [];
  const at = error.getCoordinate() as { x: number; y: number } | null;
  const where = at ? ` bij (${at.x}, ${at.y})` : '';
  return [{ name: path, code: 'invalid-geometry', reason: `Ongeldige geometrie: ${REASONS[error.getErrorType() as number] ?? 'topologisch ongeldig'}${where}.` }];
}

/**
 * Why a structurally sound geometry (the core checked its nesting) cannot be stored: a position
 * outside its CRS's area of use, or invalid topology. Empty when it can.
 */
export function geometryProblems(geometry: Geometry, crs: CrsDefinition, path: string): InvalidParam[] {
  const outside = outOfArea(geometry, crs, path);
  return outside ? [outside] : topologyErrors(geometry, path);
}
