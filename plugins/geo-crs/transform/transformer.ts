/**
 * Point transformation between any two supported CRSs, in three steps:
 * decode the source coordinates to latitude/longitude/height in the source
 * frame, change frame (WGS84 = ETRS89 null transformation, ETRS89 <-> ITRF2014
 * Helmert at the coordinate epoch), encode in the target CRS. RD enters and
 * leaves through RDNAPTRANS2018, which maps directly to and from ETRS89.
 *
 * Heights: a position keeps its dimension. A third ordinate means the height
 * of the CRS (ellipsoidal, or NAP for RD) and is converted along; a 2D position
 * stays 2D even in a 3D CRS, since its height is unknown.
 */
import proj4 from 'proj4';
import { isInArea, parseCrsUri, EUROPE, type CrsDefinition, type CrsId, type CrsUri, type GeographicArea } from './crs.js';
import { GRS80, geocentricToGeographic, geographicToGeocentric } from './ellipsoid.js';
import { CrsOutOfBoundsError, InvalidCoordinatesError } from './errors.js';
import { DEFAULT_COORDINATE_EPOCH, itrf2014Transforms } from './itrf.js';
import { etrs89ToRd, rdToEtrs89 } from './rdnaptrans.js';
import { applySimilarity, type Similarity } from './similarity.js';

export interface TransformOptions {
  /** Coordinate epoch (decimal year) for ITRF2014 coordinates; default DEFAULT_COORDINATE_EPOCH (2010.0). */
  epoch?: number;
}

export interface Transformer {
  readonly from: CrsDefinition;
  readonly to: CrsDefinition;
  /** Transforms one position (2 or more ordinates; ordinates after the third are copied) into a new array. */
  transform(position: readonly number[]): number[];
  /**
   * Allocation-free variant: the first two ordinates and the height (NaN when
   * absent) in, out[0..2] written (out[2] NaN when absent).
   */
  transformInto(a: number, b: number, h: number, out: Float64Array): void;
}

/**
 * A supported CRS by id, URI or definition. Text from elsewhere (a request) goes through `parseCrsUri`
 * first, which throws UnknownCrsError for what is not supported.
 */
export type CrsInput = CrsId | CrsUri | CrsDefinition;

const DEG = Math.PI / 180;
const MERCATOR_MAX_ORDINATE = 20037508.342789244;
const pseudoMercator = proj4('EPSG:4326', 'EPSG:3857');

function resolveCrs(crs: CrsInput): CrsDefinition {
  return typeof crs === 'string' ? parseCrsUri(crs) : crs;
}

export function createTransformer(fromCrs: CrsInput, toCrs: CrsInput, options: TransformOptions = {}): Transformer {
  const from = resolveCrs(fromCrs);
  const to = resolveCrs(toCrs);
  const epoch = options.epoch ?? DEFAULT_COORDINATE_EPOCH;
  if (!Number.isFinite(epoch)) throw new InvalidCoordinatesError(`coordinate epoch must be a finite decimal year, got ${options.epoch}`);
  const frameShift = frameShiftBetween(from, to, epoch);
  // Same coordinates, same frame (e.g. 4258 -> 9067, 28992 -> 7415): only validate.
  const sameCoordinates = from.kind === to.kind && from.frame === to.frame;
  const europeOnly = `transforming from ${from.uri} goes through ETRS89, which is defined for Europe only (${describeArea(EUROPE)})`;
  const geographic = new Float64Array(3);
  const geocentric = new Float64Array(3);

  function outOfBounds(crs: CrsDefinition, a: number, b: number, h: number, detail: string): CrsOutOfBoundsError {
    return new CrsOutOfBoundsError(crs.uri, Number.isNaN(h) ? [a, b] : [a, b, h], detail);
  }

  /** Source coordinates -> geographic[lat, lon, h] in the source frame. */
  function decode(a: number, b: number, h: number): void {
    switch (from.kind) {
      case 'lon-lat':
        checkGeographic(from, b, a, a, b, h);
        geographic[0] = b;
        geographic[1] = a;
        geographic[2] = h;
        return;
      case 'lat-lon':
        checkGeographic(from, a, b, a, b, h);
        geographic[0] = a;
        geographic[1] = b;
        geographic[2] = h;
        return;
      case 'pseudo-mercator': {
        if (!(Math.abs(a) <= MERCATOR_MAX_ORDINATE && Math.abs(b) <= MERCATOR_MAX_ORDINATE)) {
          throw outOfBounds(from, a, b, h, `|x| and |y| must not exceed ${MERCATOR_MAX_ORDINATE} m`);
        }
        const [lon, lat] = pseudoMercator.inverse([a, b]);
        geographic[0] = lat;
        geographic[1] = lon;
        geographic[2] = h;
        return;
      }
      case 'rd':
        if (!rdToEtrs89(a, b, h, geographic)) throw outOfBounds(from, a, b, h, 'outside the RDNAPTRANS2018 grids (ETRS89 50-56 N, 2-8 E)');
        return;
    }
  }

  function checkGeographic(crs: CrsDefinition, lat: number, lon: number, a: number, b: number, h: number): void {
    if (!isInArea(crs.area, lat, lon)) throw outOfBounds(crs, a, b, h, describeArea(crs.area));
  }

  /** geographic[] in the source frame -> geographic[] in the target frame. */
  function shiftFrame(a: number, b: number, h: number): void {
    if (frameShift === undefined) return;
    const lat = geographic[0];
    const lon = geographic[1];
    // Both links (WGS84 = ETRS89, ETRS89 <-> ITRF2014) are defined for Europe only.
    if (frameShift.etrs89Side === 'before' && !isInArea(EUROPE, lat, lon)) throw outOfBounds(to, a, b, h, europeOnly);
    if (frameShift.similarity !== undefined) {
      const height = geographic[2];
      geographicToGeocentric(GRS80, lat * DEG, lon * DEG, Number.isNaN(height) ? 0 : height, geocentric);
      applySimilarity(frameShift.similarity, geocentric[0], geocentric[1], geocentric[2], geocentric);
      geocentricToGeographic(GRS80, geocentric[0], geocentric[1], geocentric[2], geocentric);
      geographic[0] = geocentric[0] / DEG;
      geographic[1] = geocentric[1] / DEG;
      geographic[2] = Number.isNaN(height) ? NaN : geocentric[2];
    }
    if (frameShift.etrs89Side === 'after' && !isInArea(EUROPE, geographic[0], geographic[1])) throw outOfBounds(to, a, b, h, europeOnly);
  }

  /** geographic[] in the target frame -> target coordinates in out[]. */
  function encode(a: number, b: number, h: number, out: Float64Array): void {
    const lat = geographic[0];
    const lon = geographic[1];
    if (to.kind === 'rd') {
      if (!etrs89ToRd(lat, lon, geographic[2], out)) throw outOfBounds(to, a, b, h, 'outside the RDNAPTRANS2018 grids (ETRS89 50-56 N, 2-8 E)');
      return;
    }
    if (!isInArea(to.area, lat, lon)) throw outOfBounds(to, a, b, h, describeArea(to.area));
    switch (to.kind) {
      case 'lon-lat':
        out[0] = lon;
        out[1] = lat;
        break;
      case 'lat-lon':
        out[0] = lat;
        out[1] = lon;
        break;
      case 'pseudo-mercator': {
        const [x, y] = pseudoMercator.forward([lon, lat]);
        out[0] = x;
        out[1] = y;
        break;
      }
    }
    out[2] = geographic[2];
  }

  function transformInto(a: number, b: number, h: number, out: Float64Array): void {
    if (!(Number.isFinite(a) && Number.isFinite(b) && (Number.isNaN(h) || Number.isFinite(h)))) {
      throw new InvalidCoordinatesError(`coordinates must be finite numbers, got (${a}, ${b}${Number.isNaN(h) ? '' : `, ${h}`})`);
    }
    decode(a, b, h);
    if (sameCoordinates) {
      out[0] = a;
      out[1] = b;
      out[2] = h;
      return;
    }
    shiftFrame(a, b, h);
    encode(a, b, h, out);
  }

  const result = new Float64Array(3);
  function transform(position: readonly number[]): number[] {
    if (!Array.isArray(position) || position.length < 2 || position.some((v) => typeof v !== 'number')) {
      throw new InvalidCoordinatesError(`a position is an array of at least two numbers, got ${JSON.stringify(position)}`);
    }
    const hasHeight = position.length > 2;
    transformInto(position[0], position[1], hasHeight ? position[2] : NaN, result);
    const out = hasHeight ? [result[0], result[1], result[2]] : [result[0], result[1]];
    for (let i = 3; i < position.length; i++) out.push(position[i]);
    return out;
  }

  return { from, to, transform, transformInto };
}

interface FrameShift {
  /** Helmert transformation to apply, if any (WGS84 <-> ETRS89 is the null transformation). */
  similarity?: Similarity;
  /** Where the Europe-only check applies: on the source position or on the result. */
  etrs89Side: 'before' | 'after';
}

function frameShiftBetween(from: CrsDefinition, to: CrsDefinition, epoch: number): FrameShift | undefined {
  if (from.frame === to.frame) return undefined;
  if (from.frame === 'ITRF2014') return { similarity: itrf2014Transforms(epoch).toEtrf2000, etrs89Side: 'after' };
  if (to.frame === 'ITRF2014') return { similarity: itrf2014Transforms(epoch).fromEtrf2000, etrs89Side: 'before' };
  return { etrs89Side: 'before' };
}

function describeArea(area: GeographicArea): string {
  return `latitude ${area.south} to ${area.north}, longitude ${area.west} to ${area.east}`;
}
