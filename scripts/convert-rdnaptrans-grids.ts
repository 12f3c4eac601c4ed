/**
 * One-off development script: converts the RDNAPTRANS2018 variant-1 GeoTIFF
 * grids (NSGI, CC BY 4.0) into the compact binary format read by
 * plugins/geo-crs/transform (see gridFormat.ts). The outputs are committed, so
 * this only needs re-running when NSGI publishes new grids.
 *
 *   npx tsx scripts/convert-rdnaptrans-grids.ts <sourceDir>
 *
 * sourceDir holds nl_nsgi_rdcorr2018.tif and nl_nsgi_nlgeo2018.tif (PROJ-data, https://cdn.proj.org/).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromFile } from 'geotiff';
import { decodeGrid, encodeGrid, type GridHeader, type GridLevelHeader } from '../plugins/geo-crs/transform/gridFormat.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!process.argv[2]) throw new Error('usage: npx tsx scripts/convert-rdnaptrans-grids.ts <directory with nl_nsgi_rdcorr2018.tif and nl_nsgi_nlgeo2018.tif>');
const sourceDir = path.resolve(process.argv[2]);
const outDir = path.join(repoRoot, 'plugins/geo-crs/transform/grids');

const PIXEL_IS_POINT = 2;
const SOURCE = 'NSGI (Nederlandse Samenwerking Geodetische Infrastructuur), RDNAPTRANS2018, converted from the GeoTIFF grids';
const LICENSE = 'CC BY 4.0, https://creativecommons.org/licenses/by/4.0/';

interface ConvertedLevel {
  header: GridLevelHeader;
  values: Float32Array;
}

/** Reads every image (nested grids) of a GeoTIFF, keeping the first `bandCount` samples. */
async function readLevels(file: string, bandCount: number): Promise<ConvertedLevel[]> {
  const tiff = await fromFile(file);
  const levels: ConvertedLevel[] = [];
  for (let index = 0; index < (await tiff.getImageCount()); index++) {
    const image = await tiff.getImage(index);
    const cols = image.getWidth();
    const rows = image.getHeight();
    const [originLon, originLat] = image.getOrigin();
    const [lonStep, negativeLatStep] = image.getResolution();
    const latStep = -negativeLatStep;
    if (!(lonStep > 0 && latStep > 0)) throw new Error(`${file}#${index}: expected north-up rows, west-to-east columns`);
    // With PixelIsArea the tie point is the corner of the first cell; grid nodes sit at cell centres.
    const isPoint = image.getGeoKeys().GTRasterTypeGeoKey === PIXEL_IS_POINT;
    const north = isPoint ? originLat : originLat - latStep / 2;
    const west = isPoint ? originLon : originLon + lonStep / 2;
    const samples = Array.from({ length: bandCount }, (_, band) => band);
    const raster = (await image.readRasters({ samples, interleave: true })) as unknown as ArrayLike<number>;
    // GeoTIFF rows run north to south; the binary format runs south to north.
    const values = new Float32Array(rows * cols * bandCount);
    for (let row = 0; row < rows; row++) {
      const sourceRow = rows - 1 - row;
      for (let i = 0; i < cols * bandCount; i++) values[row * cols * bandCount + i] = raster[sourceRow * cols * bandCount + i];
    }
    levels.push({
      header: { south: roundDegrees(north - (rows - 1) * latStep), west: roundDegrees(west), latStep: roundDegrees(latStep), lonStep: roundDegrees(lonStep), rows, cols },
      values,
    });
  }
  // Finest grid first: lookups take the first level containing the point, as PROJ does with nested grids.
  return levels.sort((a, b) => a.header.latStep * a.header.lonStep - b.header.latStep * b.header.lonStep);
}

/** GeoTIFF stores the spacing as float64 sums (8.100000000000001); the grids are defined on round decimals. */
function roundDegrees(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

async function convert(tifName: string, outName: string, header: Omit<GridHeader, 'levels' | 'source' | 'license'>): Promise<void> {
  const levels = await readLevels(path.join(sourceDir, tifName), header.bands.length);
  const fullHeader: GridHeader = { ...header, source: `${SOURCE} (${tifName})`, license: LICENSE, levels: levels.map((l) => l.header) };
  const bytes = encodeGrid(fullHeader, levels.map((l) => l.values));
  // Read back to prove the file decodes to exactly the source samples.
  const decoded = decodeGrid(bytes);
  decoded.levels.forEach((level, i) => {
    level.values.forEach((value, j) => {
      if (value !== levels[i].values[j]) throw new Error(`${outName}: round trip mismatch at level ${i} value ${j}`);
    });
  });
  writeFileSync(path.join(outDir, outName), bytes);
  const summary = fullHeader.levels.map((l) => `${l.rows}x${l.cols} from (${l.south}, ${l.west}) step (${l.latStep}, ${l.lonStep})`);
  console.log(`${outName}: ${bytes.length} bytes; ${summary.join('; ')}`);
}

await convert('nl_nsgi_rdcorr2018.tif', 'rdcorr2018.bin', {
  name: 'rdcorr2018',
  unit: 'arc-second',
  bands: ['latitude_offset', 'longitude_offset_positive_east'],
});
await convert('nl_nsgi_nlgeo2018.tif', 'nlgeo2018.bin', {
  name: 'nlgeo2018',
  unit: 'metre',
  bands: ['geoid_undulation'],
});
