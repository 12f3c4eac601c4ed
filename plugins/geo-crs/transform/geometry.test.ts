import assert from 'node:assert/strict';
import { CrsOutOfBoundsError, InvalidCoordinatesError, createTransformer, transform, transformBbox, transformGeometry, type CrsInput, type Geometry } from './index.js';

const ring = [
  [5.0, 52.0],
  [5.1, 52.0],
  [5.1, 52.1],
  [5.0, 52.0],
];
const hole = [
  [5.05, 52.02],
  [5.07, 52.02],
  [5.07, 52.04],
  [5.05, 52.02],
];
const EXAMPLES: Geometry[] = [
  { type: 'Point', coordinates: [5.387, 52.155] },
  { type: 'MultiPoint', coordinates: [[5.387, 52.155], [4.9, 52.37]] },
  { type: 'LineString', coordinates: [[5.387, 52.155], [4.9, 52.37]] },
  { type: 'MultiLineString', coordinates: [[[5.387, 52.155], [4.9, 52.37]], [[6, 53], [6.1, 53.1]]] },
  { type: 'Polygon', coordinates: [ring, hole] },
  { type: 'MultiPolygon', coordinates: [[ring, hole], [ring.map(([x, y]) => [x + 1, y])]] },
  {
    type: 'GeometryCollection',
    geometries: [
      { type: 'Point', coordinates: [5.387, 52.155] },
      { type: 'GeometryCollection', geometries: [{ type: 'LineString', coordinates: [[5.387, 52.155], [4.9, 52.37]] }] },
    ],
  },
];

/** Applies a function to every position of a geometry, keeping the structure (test oracle). */
function mapEachPosition(geometry: Geometry, fn: (p: number[]) => number[]): unknown {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.map((g) => mapEachPosition(g, fn));
  const walk = (value: unknown): unknown => (typeof (value as unknown[])[0] === 'number' ? fn(value as number[]) : (value as unknown[]).map(walk));
  return walk(geometry.coordinates);
}

describe('transformGeometry', function () {
  for (const geometry of EXAMPLES) {
    it(`transforms a ${geometry.type} position by position, keeping its structure`, function () {
      const before = JSON.stringify(geometry);
      const result = transformGeometry(geometry, 'CRS84', 'EPSG:28992');
      assert.equal(JSON.stringify(geometry), before, 'input not modified');
      assert.equal(result.type, geometry.type);
      const expected = mapEachPosition(geometry, (p) => transform(p, 'CRS84', 'EPSG:28992'));
      assert.deepEqual(mapEachPosition(result, (p) => p), expected);
    });
  }

  it('keeps foreign members and recomputes a bbox member in the target CRS', function () {
    const polygon = { type: 'Polygon' as const, coordinates: [ring], bbox: [5, 52, 5.1, 52.1], title: 'x' };
    const result = transformGeometry(polygon, 'CRS84', 'EPSG:4258');
    assert.equal(result.title, 'x');
    assert.deepEqual(result.bbox, [52, 5, 52.1, 5.1]);
    const collection = transformGeometry({ type: 'GeometryCollection', geometries: [polygon], bbox: [0, 0, 0, 0] }, 'CRS84', 'EPSG:4258');
    assert.deepEqual(collection.bbox, [52, 5, 52.1, 5.1]);
  });

  it('transforms 3D geometries including heights', function () {
    const line: Geometry = { type: 'LineString', coordinates: [[5.387, 52.155, 50], [4.9, 52.37, 45]] };
    const result = transformGeometry(line, 'CRS84h', 'EPSG:7415');
    assert.deepEqual(result.coordinates, line.coordinates.map((p) => transform(p, 'CRS84h', 'EPSG:7415')));
    assert.equal(result.coordinates[0].length, 3);
  });

  it('rejects unknown types and malformed nesting with InvalidCoordinatesError', function () {
    const isInvalid = (error: unknown): boolean => error instanceof InvalidCoordinatesError;
    assert.throws(() => transformGeometry({ type: 'Circle', coordinates: [5, 52] } as unknown as Geometry, 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transformGeometry({ type: 'Polygon', coordinates: [[5, 52]] } as unknown as Geometry, 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transformGeometry({ type: 'LineString', coordinates: 5 } as unknown as Geometry, 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transformGeometry({ type: 'GeometryCollection' } as unknown as Geometry, 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transformGeometry(null as unknown as Geometry, 'CRS84', 'EPSG:28992'), isInvalid);
  });

  it('fails as a whole when one position is outside the target area', function () {
    const line: Geometry = { type: 'LineString', coordinates: [[5.387, 52.155], [5.387, 49.5]] };
    assert.throws(() => transformGeometry(line, 'CRS84', 'EPSG:28992'), CrsOutOfBoundsError);
  });
});

describe('transformBbox', function () {
  /** Extent of the box's image, sampled far more densely than transformBbox does (interior too). */
  function denseExtent(bbox: number[], from: CrsInput, to: CrsInput): number[] {
    const transformer = createTransformer(from, to);
    const out = new Float64Array(3);
    const extent = [Infinity, Infinity, -Infinity, -Infinity];
    const steps = 400;
    for (let i = 0; i <= steps; i++) {
      for (let j = 0; j <= steps; j++) {
        if (i !== 0 && i !== steps && j !== 0 && j !== steps && (i % 20 !== 0 || j % 20 !== 0)) continue;
        transformer.transformInto(bbox[0] + ((bbox[2] - bbox[0]) * i) / steps, bbox[1] + ((bbox[3] - bbox[1]) * j) / steps, NaN, out);
        extent[0] = Math.min(extent[0], out[0]);
        extent[1] = Math.min(extent[1], out[1]);
        extent[2] = Math.max(extent[2], out[0]);
        extent[3] = Math.max(extent[3], out[1]);
      }
    }
    return extent;
  }

  const CASES: [string, number[], CrsInput, CrsInput, number][] = [
    ['CRS84 -> RD, whole Netherlands', [3.2, 50.7, 7.3, 53.6], 'CRS84', 'EPSG:28992', 1],
    ['ETRS89 (lat, lon) -> RD', [51.9, 4.1, 52.3, 5.2], 'EPSG:4258', 'EPSG:28992', 0.2],
    ['RD -> CRS84', [10000, 300000, 280000, 620000], 'EPSG:28992', 'CRS84', 1e-5],
    ['RD -> Pseudo-Mercator', [120000, 480000, 125000, 490000], 'EPSG:28992', 'EPSG:3857', 0.01],
    ['CRS84 -> Pseudo-Mercator, large box', [-30, 10, 60, 80], 'CRS84', 'EPSG:3857', 1000],
  ];
  for (const [name, bbox, from, to, slack] of CASES) {
    it(`contains the transformed box, tightly: ${name}`, function () {
      const result = transformBbox(bbox, from, to);
      const truth = denseExtent(bbox, from, to);
      assert.ok(result[0] <= truth[0] && result[1] <= truth[1] && result[2] >= truth[2] && result[3] >= truth[3], `${result} does not contain ${truth}`);
      assert.ok(truth[0] - result[0] < slack && truth[1] - result[1] < slack && result[2] - truth[2] < slack && result[3] - truth[3] < slack, `${result} is loose around ${truth}`);
    });
  }

  it('handles the 6-number form with heights', function () {
    const result = transformBbox([5.0, 52.0, 0, 5.5, 52.5, 100], 'CRS84h', 'EPSG:7415');
    assert.equal(result.length, 6);
    const truth = denseExtent([5.0, 52.0, 5.5, 52.5], 'CRS84', 'EPSG:28992');
    assert.ok(result[0] <= truth[0] && result[3] >= truth[2] && result[1] <= truth[1] && result[4] >= truth[3]);
    // NAP = h - N with N about 40-45 m here.
    assert.ok(result[2] < -38 && result[2] > -48 && result[5] > 52 && result[5] < 62, String(result));
  });

  it('rejects malformed boxes and boxes leaving the target area', function () {
    assert.throws(() => transformBbox([5, 52, 4, 53], 'CRS84', 'EPSG:28992'), InvalidCoordinatesError);
    assert.throws(() => transformBbox([5, 52, 6], 'CRS84', 'EPSG:28992'), InvalidCoordinatesError);
    assert.throws(() => transformBbox([5, 52, 6, Number.NaN], 'CRS84', 'EPSG:28992'), InvalidCoordinatesError);
    assert.throws(() => transformBbox([-180, -90, 180, 90], 'CRS84', 'EPSG:28992'), CrsOutOfBoundsError);
  });
});
