/**
 * The CRS registry: the 11 CRSs of the geospatial rules, their URIs, axis
 * order and valid areas.
 *
 * Canonical URIs follow the CRS table of the geospatial rules:
 * http://www.opengis.net/def/crs/EPSG/9.9.1/{code}, .../OGC/1.3/CRS84 and
 * .../OGC/0/CRS84h. Accepted on input: http or https, EPSG version "0" or
 * "9.9.1", and the short ids below (e.g. "EPSG:28992", "CRS84").
 */
import { UnknownCrsError } from './errors.js';
import { RDNAPTRANS_AREA } from './rdnaptrans.js';

export type CrsId =
  | 'CRS84'
  | 'CRS84h'
  | 'EPSG:4258'
  | 'EPSG:4937'
  | 'EPSG:9067'
  | 'EPSG:7931'
  | 'EPSG:9000'
  | 'EPSG:7912'
  | 'EPSG:3857'
  | 'EPSG:28992'
  | 'EPSG:7415';

type EpsgCode = '4258' | '4937' | '9067' | '7931' | '9000' | '7912' | '3857' | '28992' | '7415';
type CrsUriBase = `http${'' | 's'}://www.opengis.net/def/crs/`;
/** The URIs `parseCrsUri` accepts, as a type: `'EPSG:4326'` or a typo does not compile. */
export type CrsUri = `${CrsUriBase}EPSG/${'0' | '9.9.1'}/${EpsgCode}` | `${CrsUriBase}OGC/1.3/CRS84` | `${CrsUriBase}OGC/0/CRS84h`;

/**
 * Reference frame of the coordinates. WGS84 and ETRS89 are linked by the null
 * transformation (Dutch guidance), ETRS89 (realised as ETRF2000) and ITRF2014
 * by the time-dependent EUREF Helmert transformation.
 */
export type Frame = 'WGS84' | 'ETRS89' | 'ITRF2014';

/** How the first two ordinates are formed. */
export type CoordinateKind = 'lon-lat' | 'lat-lon' | 'pseudo-mercator' | 'rd';

/** Area of validity in geographic degrees (of the CRS's own frame, which agree here to ~1 m). */
export interface GeographicArea {
  south: number;
  west: number;
  north: number;
  east: number;
}

export interface CrsDefinition {
  id: CrsId;
  /** Canonical URI, the form this library emits. */
  uri: string;
  name: string;
  dimension: 2 | 3;
  /** Axis abbreviations in coordinate order. */
  axes: readonly string[];
  kind: CoordinateKind;
  frame: Frame;
  /** Meaning of a third ordinate. */
  height: 'ellipsoidal' | 'NAP';
  area: GeographicArea;
}

const OGC_BASE = 'http://www.opengis.net/def/crs/';
const EPSG_VERSION = '9.9.1';

const WORLD: GeographicArea = { south: -90, west: -180, north: 90, east: 180 };
/** EPSG extent 1298 (Europe - ETRF), the area of use of ETRS89 and its ETRF realisations. */
export const EUROPE: GeographicArea = { south: 32.88, west: -16.1, north: 84.73, east: 40.18 };
/** Latitude where Pseudo-Mercator's square world ends (y = x = 20037508.34 m). */
const MERCATOR_MAX_LATITUDE = 85.0511287798066;
const MERCATOR_WORLD: GeographicArea = { south: -MERCATOR_MAX_LATITUDE, west: -180, north: MERCATOR_MAX_LATITUDE, east: 180 };

function epsg(code: number, rest: Omit<CrsDefinition, 'id' | 'uri'>): CrsDefinition {
  return { id: `EPSG:${code}` as CrsId, uri: `${OGC_BASE}EPSG/${EPSG_VERSION}/${code}`, ...rest };
}

export const SUPPORTED_CRS: readonly CrsDefinition[] = Object.freeze([
  { id: 'CRS84', uri: `${OGC_BASE}OGC/1.3/CRS84`, name: 'WGS 84 longitude-latitude', dimension: 2, axes: ['lon', 'lat'], kind: 'lon-lat', frame: 'WGS84', height: 'ellipsoidal', area: WORLD },
  { id: 'CRS84h', uri: `${OGC_BASE}OGC/0/CRS84h`, name: 'WGS 84 longitude-latitude-height', dimension: 3, axes: ['lon', 'lat', 'h'], kind: 'lon-lat', frame: 'WGS84', height: 'ellipsoidal', area: WORLD },
  epsg(4258, { name: 'ETRS89', dimension: 2, axes: ['lat', 'lon'], kind: 'lat-lon', frame: 'ETRS89', height: 'ellipsoidal', area: EUROPE }),
  epsg(4937, { name: 'ETRS89 (3D)', dimension: 3, axes: ['lat', 'lon', 'h'], kind: 'lat-lon', frame: 'ETRS89', height: 'ellipsoidal', area: EUROPE }),
  epsg(9067, { name: 'ETRF2000', dimension: 2, axes: ['lat', 'lon'], kind: 'lat-lon', frame: 'ETRS89', height: 'ellipsoidal', area: EUROPE }),
  epsg(7931, { name: 'ETRF2000 (3D)', dimension: 3, axes: ['lat', 'lon', 'h'], kind: 'lat-lon', frame: 'ETRS89', height: 'ellipsoidal', area: EUROPE }),
  epsg(9000, { name: 'ITRF2014', dimension: 2, axes: ['lat', 'lon'], kind: 'lat-lon', frame: 'ITRF2014', height: 'ellipsoidal', area: WORLD }),
  epsg(7912, { name: 'ITRF2014 (3D)', dimension: 3, axes: ['lat', 'lon', 'h'], kind: 'lat-lon', frame: 'ITRF2014', height: 'ellipsoidal', area: WORLD }),
  epsg(3857, { name: 'WGS 84 / Pseudo-Mercator', dimension: 2, axes: ['E', 'N'], kind: 'pseudo-mercator', frame: 'WGS84', height: 'ellipsoidal', area: MERCATOR_WORLD }),
  epsg(28992, { name: 'Amersfoort / RD New', dimension: 2, axes: ['x', 'y'], kind: 'rd', frame: 'ETRS89', height: 'NAP', area: RDNAPTRANS_AREA }),
  epsg(7415, { name: 'Amersfoort / RD New + NAP height', dimension: 3, axes: ['x', 'y', 'H'], kind: 'rd', frame: 'ETRS89', height: 'NAP', area: RDNAPTRANS_AREA }),
] satisfies CrsDefinition[]);

const byId = new Map<string, CrsDefinition>(SUPPORTED_CRS.map((crs) => [crs.id.toLowerCase(), crs]));

// scheme, host, path: /EPSG/{0|9.9.1}/{code}, /OGC/1.3/CRS84 or /OGC/0/CRS84h
const CRS_URI = /^https?:\/\/www\.opengis\.net\/def\/crs\/(?:EPSG\/(?:0|9\.9\.1)\/(\d+)|OGC\/1\.3\/(CRS84)|OGC\/0\/(CRS84h))$/;

/** The CRS of a URI or short id; throws UnknownCrsError. */
export function parseCrsUri(uriOrId: string): CrsDefinition {
  const text = String(uriOrId).trim();
  const match = CRS_URI.exec(text);
  const id = match ? (match[1] !== undefined ? `EPSG:${match[1]}` : (match[2] ?? match[3])) : text;
  const crs = byId.get(id.toLowerCase());
  if (crs === undefined) throw new UnknownCrsError(uriOrId);
  return crs;
}

/** The canonical URI for any accepted spelling of a supported CRS. */
export function canonicalCrsUri(uriOrId: string): string {
  return parseCrsUri(uriOrId).uri;
}

export function isInArea(area: GeographicArea, lat: number, lon: number): boolean {
  return lat >= area.south && lat <= area.north && lon >= area.west && lon <= area.east;
}
