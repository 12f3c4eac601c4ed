/**
 * Accuracy gate: NSGI's RDNAPTRANS2018 self-validation file Z001 (10,000
 * points). Inside the grids every point must match to 1 mm and 1e-8 degrees
 * in both directions; outside, the transformation must refuse.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CrsOutOfBoundsError, createTransformer, etrs89ToRd, geoidHeight, gridPath, rdToEtrs89, setGridDirectory, GridUnavailableError } from './index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const Z001 = path.join(repoRoot, 'reference/rdnaptrans2018/Z001_ETRS89andRDNAP.txt');
const METRE_TOLERANCE = 0.001;
const DEGREE_TOLERANCE = 1e-8;

interface ValidationPoint {
  id: string;
  lat: number;
  lon: number;
  h: number;
  x: number;
  y: number;
  /** NaN where Z001 has "*" (outside the grids). */
  nap: number;
}

function readZ001(): ValidationPoint[] {
  return readFileSync(Z001, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, lat, lon, h, x, y, nap] = line.trim().split(/\s+/);
      return { id, lat: +lat, lon: +lon, h: +h, x: +x, y: +y, nap: nap === '*' ? NaN : +nap };
    });
}

interface Tally {
  pass: number;
  fail: number;
  refused: number;
  /** Points inside the grids that were refused, and points outside that were not. */
  wronglyRefused: number;
  wronglyAccepted: number;
  worst: Record<string, number>;
  failures: string[];
}

function newTally(...measures: string[]): Tally {
  return { pass: 0, fail: 0, refused: 0, wronglyRefused: 0, wronglyAccepted: 0, worst: Object.fromEntries(measures.map((m) => [m, 0])), failures: [] };
}

/** Runs one direction over all points; `compare` returns the errors per measure, `limits` the tolerances. */
function validate(points: ValidationPoint[], tally: Tally, run: (p: ValidationPoint, out: Float64Array) => void, compare: (p: ValidationPoint, out: Float64Array) => Record<string, number>, limits: Record<string, number>): void {
  const out = new Float64Array(3);
  for (const point of points) {
    const inGrid = !Number.isNaN(point.nap);
    try {
      run(point, out);
    } catch (error) {
      if (!(error instanceof CrsOutOfBoundsError)) throw error;
      tally.refused++;
      if (inGrid) tally.wronglyRefused++;
      continue;
    }
    if (!inGrid) {
      tally.wronglyAccepted++;
      continue;
    }
    const errors = compare(point, out);
    let ok = true;
    for (const [measure, value] of Object.entries(errors)) {
      tally.worst[measure] = Math.max(tally.worst[measure], value);
      if (!(value <= limits[measure])) ok = false;
    }
    if (ok) tally.pass++;
    else {
      tally.fail++;
      if (tally.failures.length < 10) tally.failures.push(`${point.id}: ${JSON.stringify(errors)}`);
    }
  }
}

function report(direction: string, tally: Tally): void {
  const worst = Object.entries(tally.worst)
    .map(([m, v]) => `${m} ${v.toExponential(2)}`)
    .join(', ');
  console.log(`      Z001 ${direction}: in-grid pass ${tally.pass} / in-grid fail ${tally.fail} / refused ${tally.refused}; worst: ${worst}`);
}

describe('RDNAPTRANS2018 (variant 1)', function () {
  let points: ValidationPoint[] = [];

  before(function () {
    points = readZ001();
  });

  it('reads all 10,000 Z001 points', function () {
    assert.equal(points.length, 10000);
  });

  it('ETRS89 -> RD/NAP matches Z001 within 1 mm, refusing points outside the grids', function () {
    const toRdNap = createTransformer('EPSG:4937', 'EPSG:7415');
    const tally = newTally('x', 'y', 'NAP');
    validate(
      points,
      tally,
      (p, out) => toRdNap.transformInto(p.lat, p.lon, p.h, out),
      (p, out) => ({ x: Math.abs(out[0] - p.x), y: Math.abs(out[1] - p.y), NAP: Math.abs(out[2] - p.nap) }),
      { x: METRE_TOLERANCE, y: METRE_TOLERANCE, NAP: METRE_TOLERANCE },
    );
    report('ETRS89 -> RD', tally);
    assert.deepEqual(tally.failures, []);
    assert.equal(tally.fail, 0);
    assert.equal(tally.wronglyRefused, 0, 'points inside the grids were refused');
    assert.equal(tally.wronglyAccepted, 0, 'points outside the grids were transformed');
    assert.equal(tally.pass + tally.refused, points.length);
  });

  it('RD/NAP -> ETRS89 matches Z001 within 1e-8 degrees and 1 mm, refusing points outside the grids', function () {
    const toEtrs89 = createTransformer('EPSG:7415', 'EPSG:4937');
    const tally = newTally('lat', 'lon', 'h');
    validate(
      points,
      tally,
      (p, out) => toEtrs89.transformInto(p.x, p.y, p.nap, out),
      (p, out) => ({ lat: Math.abs(out[0] - p.lat), lon: Math.abs(out[1] - p.lon), h: Math.abs(out[2] - p.h) }),
      { lat: DEGREE_TOLERANCE, lon: DEGREE_TOLERANCE, h: METRE_TOLERANCE },
    );
    report('RD -> ETRS89', tally);
    assert.deepEqual(tally.failures, []);
    assert.equal(tally.fail, 0);
    assert.equal(tally.wronglyRefused, 0, 'points inside the grids were refused');
    assert.equal(tally.wronglyAccepted, 0, 'points outside the grids were transformed');
  });

  it('2D transformation gives the same RD coordinates (the procedure fixes h at 43 m)', function () {
    const toRd = createTransformer('EPSG:4258', 'EPSG:28992');
    const out = new Float64Array(3);
    for (const p of points.filter((q) => !Number.isNaN(q.nap)).slice(0, 500)) {
      toRd.transformInto(p.lat, p.lon, NaN, out);
      assert.ok(Math.abs(out[0] - p.x) <= METRE_TOLERANCE && Math.abs(out[1] - p.y) <= METRE_TOLERANCE, p.id);
      assert.ok(Number.isNaN(out[2]));
    }
  });
});

describe('RDNAPTRANS2018 building blocks', function () {
  it('refuses positions just outside the grid area and accepts its edges', function () {
    const out = new Float64Array(3);
    assert.equal(etrs89ToRd(49.99, 5, NaN, out), false);
    assert.equal(etrs89ToRd(52, 8.0001, NaN, out), false);
    assert.equal(etrs89ToRd(50, 2, 0, out), true);
    assert.equal(etrs89ToRd(56, 8, 0, out), true);
    assert.equal(rdToEtrs89(155000, 463000 + 2e6, NaN, out), false);
    assert.equal(rdToEtrs89(1e300, -1e300, NaN, out), false);
  });

  it('has the geoid height of nlgeo2018 at a grid node', function () {
    // The north-west node (56 N, 2 E), the first sample of the source GeoTIFF, holds 44.1626 m.
    const n = geoidHeight(56, 2);
    assert.ok(Math.abs(n - 44.1626) < 1e-4, String(n));
    const between = geoidHeight(55.99375, 2.01);
    const corners = [geoidHeight(56, 2), geoidHeight(56, 2.02), geoidHeight(55.9875, 2), geoidHeight(55.9875, 2.02)];
    assert.ok(between >= Math.min(...corners) && between <= Math.max(...corners));
  });

  it('resolves grids next to the module by default, and from ZAAKREGISTER_GRID_DIR or setGridDirectory', function () {
    const moduleGrids = path.join(path.dirname(fileURLToPath(import.meta.url)), 'grids');
    const saved = process.env.ZAAKREGISTER_GRID_DIR;
    try {
      delete process.env.ZAAKREGISTER_GRID_DIR;
      assert.equal(gridPath('nlgeo2018.bin'), path.join(moduleGrids, 'nlgeo2018.bin'));
      process.env.ZAAKREGISTER_GRID_DIR = '/opt/grids';
      assert.equal(gridPath('nlgeo2018.bin'), path.join('/opt/grids', 'nlgeo2018.bin'));
      setGridDirectory('/elsewhere');
      assert.equal(gridPath('nlgeo2018.bin'), path.join('/elsewhere', 'nlgeo2018.bin'));
    } finally {
      setGridDirectory(undefined);
      if (saved === undefined) delete process.env.ZAAKREGISTER_GRID_DIR;
      else process.env.ZAAKREGISTER_GRID_DIR = saved;
    }
  });
});

describe('missing grids', function () {
  it('raise GridUnavailableError (code GRID_UNAVAILABLE) naming the path, and load again once configured', function () {
    setGridDirectory('/nonexistent-grid-dir');
    try {
      assert.throws(
        () => createTransformer('EPSG:4258', 'EPSG:28992').transform([52, 5]),
        (error: unknown) => error instanceof GridUnavailableError && error.code === 'GRID_UNAVAILABLE' && error.path.startsWith('/nonexistent-grid-dir'),
      );
    } finally {
      setGridDirectory(undefined);
    }
    assert.equal(createTransformer('EPSG:4258', 'EPSG:28992').transform([52, 5]).length, 2);
  });
});
