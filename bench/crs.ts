/**
 * Throughput of the CRS library (plugins/geo-crs/transform), one core:
 *
 *   npx tsx bench/crs.ts [points]
 *
 * Prints a Markdown table. Not part of `npm test`.
 */
import { createTransformer, loadRdnaptransGrids, transformGeometry, type CrsInput, type Geometry } from '../plugins/geo-crs/transform/index.js';

const POINTS = Number(process.argv[2] ?? 1_000_000);
const POLYGON_VERTICES = 1000;

/** Deterministic pseudo-random positions over the Netherlands (ETRS89 lat, lon, h). */
function samplePositions(count: number): Float64Array {
  const positions = new Float64Array(count * 3);
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < count; i++) {
    positions[i * 3] = 50.8 + random() * 2.7;
    positions[i * 3 + 1] = 3.4 + random() * 3.7;
    positions[i * 3 + 2] = random() * 100;
  }
  return positions;
}

interface Row {
  name: string;
  count: number;
  seconds: number;
  unit: string;
}

/** Runs `body` repeatedly for at least half a second after a warm-up and returns the best run. */
function measure(name: string, count: number, unit: string, body: () => void): Row {
  body();
  let best = Infinity;
  const deadline = performance.now() + 500;
  do {
    const start = performance.now();
    body();
    best = Math.min(best, (performance.now() - start) / 1000);
  } while (performance.now() < deadline);
  return { name, count, seconds: best, unit };
}

loadRdnaptransGrids();
const etrs89 = samplePositions(POINTS);
const rd = new Float64Array(POINTS * 3);
const back = new Float64Array(POINTS * 3);
const out = new Float64Array(3);

function run(from: CrsInput, to: CrsInput, input: Float64Array, output: Float64Array, withHeight: boolean): () => void {
  const transformer = createTransformer(from, to);
  return () => {
    for (let i = 0; i < POINTS; i++) {
      transformer.transformInto(input[i * 3], input[i * 3 + 1], withHeight ? input[i * 3 + 2] : NaN, out);
      output[i * 3] = out[0];
      output[i * 3 + 1] = out[1];
      output[i * 3 + 2] = out[2];
    }
  };
}

const rows: Row[] = [];
rows.push(measure('ETRS89 -> RD (4258 -> 28992, 2D)', POINTS, 'points/s', run('EPSG:4258', 'EPSG:28992', etrs89, rd, false)));
rows.push(measure('RD -> ETRS89 (28992 -> 4258, 2D)', POINTS, 'points/s', run('EPSG:28992', 'EPSG:4258', rd, back, false)));
rows.push(measure('ETRS89 -> RD + NAP (4937 -> 7415, 3D)', POINTS, 'points/s', run('EPSG:4937', 'EPSG:7415', etrs89, rd, true)));
rows.push(measure('RD + NAP -> ETRS89 (7415 -> 4937, 3D)', POINTS, 'points/s', run('EPSG:7415', 'EPSG:4937', rd, back, true)));

// A closed ring of 1,000 vertices around Utrecht, in CRS84.
const ring = Array.from({ length: POLYGON_VERTICES }, (_, i) => {
  const angle = (2 * Math.PI * i) / (POLYGON_VERTICES - 1);
  return [5.12 + 0.1 * Math.cos(angle), 52.09 + 0.06 * Math.sin(angle)];
});
const polygon: Geometry = { type: 'Polygon', coordinates: [ring] };
const polygons = 200;
rows.push(
  measure(`1,000-vertex polygon CRS84 -> RD (transformGeometry, x${polygons})`, polygons, 'polygons/s', () => {
    for (let i = 0; i < polygons; i++) transformGeometry(polygon, 'CRS84', 'EPSG:28992');
  }),
);

// A page of the zaak list: 100 point geometries, as geo-crs transforms them for `crs` (one transformer per geometry).
const pageOfPoints: Geometry[] = Array.from({ length: 100 }, (_, i) => ({ type: 'Point', coordinates: [4 + (i % 10) * 0.2, 51.5 + Math.floor(i / 10) * 0.1] }));
const pageInRd = pageOfPoints.map((g) => transformGeometry(g, 'CRS84', 'EPSG:28992'));
const pages = 2000;
rows.push(
  measure(`page of 100 points CRS84 -> RD (x${pages})`, pages, 'pages/s', () => {
    for (let i = 0; i < pages; i++) for (const g of pageOfPoints) transformGeometry(g, 'CRS84', 'EPSG:28992');
  }),
);
rows.push(
  measure(`page of 100 points RD -> CRS84 (x${pages})`, pages, 'pages/s', () => {
    for (let i = 0; i < pages; i++) for (const g of pageInRd) transformGeometry(g, 'EPSG:28992', 'CRS84');
  }),
);

console.log(`Node ${process.version}, ${POINTS.toLocaleString('en')} points\n`);
console.log('| Operation | Rate | Per item |');
console.log('|---|---:|---:|');
for (const row of rows) {
  const rate = row.count / row.seconds;
  console.log(`| ${row.name} | ${Math.round(rate).toLocaleString('en')} ${row.unit} | ${((row.seconds / row.count) * 1e6).toFixed(3)} µs |`);
}
