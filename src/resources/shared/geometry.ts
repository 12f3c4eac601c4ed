import type { JsonSchema } from '../../operation.js';
import type { InvalidParam } from '../../problem.js';

const GEOMETRY_TYPES = ['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'];

/** GeoJSON geometry as the standard documents it; the structure of `coordinates` is checked in code. */
export const geometrySchema: JsonSchema = {
  type: 'object',
  title: 'GeoJSONGeometry',
  description: 'GeoJSON-geometrie (RFC 7946): Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon of GeometryCollection.',
  properties: {
    type: { type: 'string', enum: GEOMETRY_TYPES },
    coordinates: { type: 'array', items: {} },
    geometries: { type: 'array', items: { type: 'object' } },
  },
  required: ['type'],
};

const POSITION_DEPTH: Record<string, number> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
};

function isPosition(value: unknown): boolean {
  return Array.isArray(value) && value.length >= 2 && value.length <= 3 && value.every((n) => typeof n === 'number' && Number.isFinite(n));
}

function hasDepth(value: unknown, depth: number, minItems: (level: number) => number): boolean {
  if (depth === 0) return isPosition(value);
  return Array.isArray(value) && value.length >= minItems(depth) && value.every((item) => hasDepth(item, depth - 1, minItems));
}

/** Checks a geometry's coordinate structure (nesting, numbers, rings closed); names errors under `name`. */
export function geometryErrors(geometry: Record<string, unknown>, name: string): InvalidParam[] {
  const type = String(geometry.type);
  if (type === 'GeometryCollection') {
    const members = geometry.geometries;
    if (!Array.isArray(members)) return [{ name: `${name}.geometries`, code: 'required', reason: 'Een GeometryCollection heeft geometries.' }];
    return members.flatMap((member, i) =>
      member && typeof member === 'object' && (member as { type?: unknown }).type !== 'GeometryCollection' && GEOMETRY_TYPES.includes(String((member as { type?: unknown }).type))
        ? geometryErrors(member as Record<string, unknown>, `${name}.geometries.${i}`)
        : [{ name: `${name}.geometries.${i}`, code: 'invalid', reason: 'Ongeldige geometrie.' }],
    );
  }
  const depth = POSITION_DEPTH[type];
  const minItems = (level: number) => (type.endsWith('LineString') && level === 1 ? 2 : type.endsWith('Polygon') && level === 1 ? 4 : 0);
  if (!hasDepth(geometry.coordinates, depth, minItems)) {
    return [{ name: `${name}.coordinates`, code: 'invalid', reason: `Ongeldige coördinaten voor een ${type}.` }];
  }
  if (type.endsWith('Polygon')) {
    const polygons = (type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates) as number[][][][];
    const open = polygons.some((rings) => rings.some((ring) => ring[0].join() !== ring[ring.length - 1].join()));
    if (open) return [{ name: `${name}.coordinates`, code: 'invalid', reason: 'Een ring van een polygoon moet gesloten zijn.' }];
  }
  return [];
}
