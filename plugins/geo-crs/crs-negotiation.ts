import { ProblemError, invalidParam } from '../../src/plugin-api.js';
import { SUPPORTED_CRS, UnknownCrsError, parseCrsUri, type CrsDefinition } from './transform/index.js';

/** The CRS assumed when a request states none (seed 3, rule 1). */
export const CRS84 = parseCrsUri('CRS84');
export const CRS84H = parseCrsUri('CRS84h');

/**
 * The values of the Zaken API 1.5.1 `Accept-Crs` / `Content-Crs` headers. `EPSG:4326` is GeoJSON in
 * lon/lat order as ZGW clients send and expect it: CRS84's axis order.
 */
const ZGW_HEADER_CRS: Record<string, CrsDefinition> = {
  'epsg:4326': CRS84,
  'epsg:3857': parseCrsUri('EPSG:3857'),
  'epsg:4258': parseCrsUri('EPSG:4258'),
  'epsg:28992': parseCrsUri('EPSG:28992'),
};

/** Every supported CRS URI, CRS84 first (the order of the library's table). */
export const SUPPORTED_CRS_URIS = SUPPORTED_CRS.map((crs) => crs.uri);

/** A `crs`, `bbox-crs` or `filter-crs` parameter: a supported CRS URI (versioned or `/EPSG/0/`), else 400. */
export function crsParameter(name: string, value: string): CrsDefinition {
  try {
    return parseCrsUri(value);
  } catch (error) {
    if (!(error instanceof UnknownCrsError)) throw error;
    throw invalidParam(name, 'unknown-crs', `Het CRS "${value}" wordt niet ondersteund; zie /crss voor de ondersteunde CRS'en.`);
  }
}

/** A CRS header (`Accept-Crs`, `Content-Crs`): the ZGW short forms or a supported URI; undefined when absent. */
export function crsHeader(value: string | undefined): { crs: CrsDefinition; zgw: boolean } | undefined | null {
  if (value === undefined || value.trim() === '') return undefined;
  const zgw = ZGW_HEADER_CRS[value.trim().toLowerCase()];
  if (zgw) return { crs: zgw, zgw: true };
  try {
    return { crs: parseCrsUri(value), zgw: false };
  } catch (error) {
    if (error instanceof UnknownCrsError) return null;
    throw error;
  }
}

/** The CRS of a request body's geometry: `Content-Crs`, CRS84 when absent; an unsupported one is 400. */
export function contentCrs(value: string | undefined): CrsDefinition {
  const parsed = crsHeader(value);
  if (parsed === null) throw invalidParam('Content-Crs', 'unknown-crs', `Het CRS "${value}" in Content-Crs wordt niet ondersteund.`);
  return parsed?.crs ?? CRS84;
}

/** What a response's geometry is given in, and how its `Content-Crs` names it. */
export interface ResponseCrs {
  crs: CrsDefinition;
  /** The header value: the URI, or the ZGW short form a client asked for with `Accept-Crs`. */
  header?: string;
}

/** The `crs` parameter wins over `Accept-Crs`; an unsupported `Accept-Crs` is 406; none: CRS84. */
export function responseCrs(crsParam: unknown, acceptCrs: string | undefined): ResponseCrs | undefined {
  if (typeof crsParam === 'string') return { crs: crsParameter('crs', crsParam) };
  const accepted = crsHeader(acceptCrs);
  if (accepted === null) throw new ProblemError('not_acceptable', { detail: `Het CRS "${acceptCrs}" in Accept-Crs wordt niet ondersteund.` });
  if (!accepted) return undefined;
  return { crs: accepted.crs, header: accepted.zgw ? acceptCrs!.trim().toUpperCase() : undefined };
}
