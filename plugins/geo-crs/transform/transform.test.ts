import assert from 'node:assert/strict';
import proj4 from 'proj4';
import {
  CrsOutOfBoundsError,
  DEFAULT_COORDINATE_EPOCH,
  InvalidCoordinatesError,
  SUPPORTED_CRS,
  createTransformer,
  geoidHeight,
  transform,
  type CrsDefinition,
} from './index.js';
import { BESSEL_1841, GRS80, geocentricToGeographic, geographicToGeocentric } from './ellipsoid.js';
import { rdForward, rdInverse } from './rdProjection.js';

const DEG = Math.PI / 180;
const dms = (d: number, m: number, s: number): number => d + m / 60 + s / 3600;

/** `horizontal` applies to the first two ordinates, `height` (default 1 mm) to the third. */
function assertClose(actual: readonly number[], expected: readonly number[], horizontal: number, message?: string, height = 0.001): void {
  assert.equal(actual.length, expected.length, `${message ?? ''} dimension: ${JSON.stringify(actual)}`);
  actual.forEach((value, i) => {
    const tolerance = i < 2 ? horizontal : height;
    assert.ok(Math.abs(value - expected[i]) <= tolerance, `${message ?? ''} ordinate ${i}: ${value} vs ${expected[i]} (tolerance ${tolerance})`);
  });
}

/** Z001 points (NSGI self-validation): ETRS89 lat, lon, h and RD x, y, NAP. */
const Z001_POINTS = [
  { lat: 51.728601274, lon: 4.712120126, h: 301.7981, x: 108360.879, y: 415757.2745, nap: 258.0057 },
  { lat: 52.115330444, lon: 7.684748554, h: 41.416, x: 312352.6004, y: 461058.5812, nap: -2.5206 },
  { lat: 53.001308983, lon: 3.360296728, h: 72.6882, x: 18940.4448, y: 559061.2153, nap: 29.9951 },
  { lat: 53.558631914, lon: 6.829370962, h: 39.951, x: 250569.5957, y: 620134.9245, nap: -0.2625 },
];

describe('building blocks against EPSG Guidance Note 7-2 examples', function () {
  it('geographic -> geocentric (53 48 33.820 N, 2 07 46.380 E, 73 m) and back; agrees with proj4', function () {
    const out = new Float64Array(3);
    const lat = dms(53, 48, 33.82);
    const lon = dms(2, 7, 46.38);
    geographicToGeocentric(GRS80, lat * DEG, lon * DEG, 73, out);
    // The guidance note uses WGS 84, whose flattening differs from GRS80 by 1.6e-11: well below 1 mm here.
    assertClose([...out], [3771793.968, 140253.342, 5124304.349], 0.001);
    assertClose([...out], proj4('+proj=longlat +ellps=GRS80 +no_defs', '+proj=geocent +ellps=GRS80 +units=m +no_defs', [lon, lat, 73]), 1e-6, 'proj4', 1e-6);
    geocentricToGeographic(GRS80, out[0], out[1], out[2], out);
    assertClose([out[0] / DEG, out[1] / DEG, out[2]], [lat, lon, 73], 1e-11, 'GRS80', 1e-6);
    geographicToGeocentric(BESSEL_1841, lat * DEG, lon * DEG, -1000, out);
    geocentricToGeographic(BESSEL_1841, out[0], out[1], out[2], out);
    assertClose([out[0] / DEG, out[1] / DEG, out[2]], [lat, lon, -1000], 1e-11, 'Bessel', 1e-6);
  });

  it('oblique stereographic RD projection (53 N, 6 E on Bessel -> 196105.283, 557057.739) and its inverse', function () {
    const out = new Float64Array(2);
    rdForward(53 * DEG, 6 * DEG, out);
    assertClose([...out], [196105.283, 557057.739], 0.001);
    rdInverse(196105.283, 557057.739, out);
    assertClose([out[0] / DEG, out[1] / DEG], [53, 6], 1e-8);
    rdInverse(155000, 463000, out);
    assertClose([out[0] / DEG, out[1] / DEG], [52.156160556, 5.387638889], 1e-12);
  });
});

describe('transform between CRS pairs', function () {
  it('ETRS89 / CRS84 / ETRF2000 -> RD match NSGI control points (Z001), in every axis order', function () {
    for (const p of Z001_POINTS) {
      assertClose(transform([p.lat, p.lon], 'EPSG:4258', 'EPSG:28992'), [p.x, p.y], 0.001);
      assertClose(transform([p.lat, p.lon], 'EPSG:9067', 'EPSG:28992'), [p.x, p.y], 0.001);
      assertClose(transform([p.lon, p.lat], 'CRS84', 'EPSG:28992'), [p.x, p.y], 0.001);
      assertClose(transform([p.lon, p.lat, p.h], 'CRS84h', 'EPSG:7415'), [p.x, p.y, p.nap], 0.001);
      assertClose(transform([p.lat, p.lon, p.h], 'EPSG:7931', 'EPSG:7415'), [p.x, p.y, p.nap], 0.001);
      assertClose(transform([p.x, p.y, p.nap], 'EPSG:7415', 'EPSG:4937'), [p.lat, p.lon, p.h], 1e-8);
      assertClose(transform([p.x, p.y], 'EPSG:28992', 'CRS84'), [p.lon, p.lat], 1e-8);
    }
  });

  it('CRS84 -> Pseudo-Mercator matches EPSG GN 7-2 (24 22 54.433 N, 100 20 W -> -11169055.58, 2800000.00)', function () {
    const lon = -dms(100, 20, 0);
    const lat = dms(24, 22, 54.433);
    assertClose(transform([lon, lat], 'CRS84', 'EPSG:3857'), [-11169055.58, 2800000.0], 0.01);
    assertClose(transform([-11169055.58, 2800000.0], 'EPSG:3857', 'CRS84'), [lon, lat], 1e-7);
  });

  it('treats WGS 84, ETRS89 and ETRF2000 as identical (null transformation), swapping axes only', function () {
    assert.deepEqual(transform([5.1, 52.2], 'CRS84', 'EPSG:4258'), [52.2, 5.1]);
    assert.deepEqual(transform([52.2, 5.1], 'EPSG:4258', 'EPSG:9067'), [52.2, 5.1]);
    assert.deepEqual(transform([52.2, 5.1, 12.5], 'EPSG:4937', 'CRS84h'), [5.1, 52.2, 12.5]);
    assert.deepEqual(transform([52.2, 5.1, 12.5], 'EPSG:7931', 'EPSG:4937'), [52.2, 5.1, 12.5]);
    assert.deepEqual(transform([155000, 463000, 1.5], 'EPSG:7415', 'EPSG:28992'), [155000, 463000, 1.5]);
  });

  it('ITRF2014 -> ETRF2000 drifts as published: ~0.75 m in 2019, growing 2.4 cm a year (NSGI)', function () {
    const amersfoort = [52.155, 5.387];
    const horizontalShift = (epoch: number): number => {
      const [lat, lon] = transform(amersfoort, 'EPSG:4258', 'EPSG:9000', { epoch });
      return Math.hypot((lat - amersfoort[0]) * 111250, (lon - amersfoort[1]) * 111250 * Math.cos(amersfoort[0] * DEG));
    };
    assert.ok(Math.abs(horizontalShift(2019) - 0.75) < 0.03, String(horizontalShift(2019)));
    assert.ok(Math.abs(horizontalShift(2020) - horizontalShift(2019) - 0.024) < 0.002);
    assert.equal(DEFAULT_COORDINATE_EPOCH, 2010);
    assert.deepEqual(transform(amersfoort, 'EPSG:4258', 'EPSG:9000'), transform(amersfoort, 'EPSG:4258', 'EPSG:9000', { epoch: 2010 }));
    // Heights follow the Helmert transformation too (cm level).
    const [, , h] = transform([52.155, 5.387, 40], 'EPSG:4937', 'EPSG:7912', { epoch: 2020 });
    assert.ok(Math.abs(h - 40) < 0.2 && h !== 40);
  });

  it('converts heights: NAP = h - N(nlgeo2018) and back', function () {
    const n = geoidHeight(52.155, 5.387);
    assert.ok(n > 40 && n < 45);
    const [, , nap] = transform([5.387, 52.155, 50], 'CRS84h', 'EPSG:7415');
    assertClose([nap], [50 - n], 1e-9);
    const [, , h] = transform(transform([5.387, 52.155, 50], 'CRS84h', 'EPSG:7415'), 'EPSG:7415', 'EPSG:4937');
    assertClose([h], [50], 1e-6);
  });

  it('keeps the dimension of a position: 2D stays 2D in a 3D CRS, ordinates after the third are copied', function () {
    assert.equal(transform([52.155, 5.387], 'EPSG:4258', 'EPSG:7415').length, 2);
    const withMeasure = transform([5.387, 52.155, 10, 99], 'CRS84h', 'EPSG:7415');
    assert.equal(withMeasure.length, 4);
    assert.equal(withMeasure[3], 99);
  });

  const SAMPLES: [number, number, number][] = [
    [52.155, 5.387, 50],
    [50.85, 5.69, 120],
    [53.4, 6.9, 0],
    [51.4, 3.5, -5],
    [55.9, 2.1, 10],
    [50.01, 7.99, 300],
  ];
  /** Round-trip tolerance in the units of `crs`, about 1 mm on the ground. */
  function tolerance(crs: CrsDefinition): number {
    if (crs.kind === 'lat-lon' || crs.kind === 'lon-lat') return 1e-8;
    return crs.kind === 'pseudo-mercator' ? 0.002 : 0.001;
  }

  for (const from of SUPPORTED_CRS) {
    for (const to of SUPPORTED_CRS) {
      it(`${from.id} -> ${to.id} -> ${from.id} round trip within 1 mm`, function () {
        const seed = createTransformer('EPSG:4937', from);
        const forward = createTransformer(from, to, { epoch: 2024.5 });
        const backward = createTransformer(to, from, { epoch: 2024.5 });
        for (const sample of SAMPLES) {
          const start = seed.transform(sample);
          const there = forward.transform(start);
          assert.equal(there.length, 3);
          assertClose(backward.transform(there), start, tolerance(from), `${JSON.stringify(start)}`);
        }
      });
    }
  }
});

describe('transform errors', function () {
  const isOutOfBounds = (error: unknown): boolean => error instanceof CrsOutOfBoundsError && error.code === 'CRS_OUT_OF_BOUNDS';

  it('rejects positions outside the source CRS area', function () {
    assert.throws(() => transform([5, 91], 'CRS84', 'EPSG:3857'), isOutOfBounds);
    assert.throws(() => transform([181, 0], 'CRS84', 'CRS84h'), isOutOfBounds);
    assert.throws(() => transform([-25, 135], 'EPSG:4258', 'CRS84'), isOutOfBounds);
    assert.throws(() => transform([0, 2.1e7], 'EPSG:3857', 'CRS84'), isOutOfBounds);
    assert.throws(() => transform([155000, 2463000], 'EPSG:28992', 'EPSG:4258'), isOutOfBounds);
    assert.throws(() => transform([155000, 2463000], 'EPSG:28992', 'EPSG:7415'), isOutOfBounds);
  });

  it('rejects positions outside the target CRS area, naming the target', function () {
    assert.throws(() => transform([5, 49.9], 'CRS84', 'EPSG:28992'), (error: unknown) => isOutOfBounds(error) && (error as CrsOutOfBoundsError).crs.endsWith('/28992'));
    assert.throws(() => transform([5, 86], 'CRS84', 'EPSG:3857'), isOutOfBounds);
    assert.throws(() => transform([135, -25], 'CRS84', 'EPSG:4258'), isOutOfBounds);
    assert.throws(() => transform([-25, 135], 'EPSG:9000', 'EPSG:28992'), isOutOfBounds);
    assert.throws(() => transform([135, -25], 'CRS84', 'EPSG:9000'), isOutOfBounds);
  });

  it('rejects malformed positions with InvalidCoordinatesError', function () {
    const isInvalid = (error: unknown): boolean => error instanceof InvalidCoordinatesError && error.code === 'INVALID_COORDINATES';
    assert.throws(() => transform([5], 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transform([5, Number.NaN], 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transform([5, 52, Infinity], 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => transform(['5', 52] as unknown as number[], 'CRS84', 'EPSG:28992'), isInvalid);
    assert.throws(() => createTransformer('CRS84', 'EPSG:9000', { epoch: Number.NaN }), isInvalid);
  });
});
