/**
 * CRS transformation library for the geo-crs plugin: the 11 CRSs of the
 * geospatial rules, RD <-> ETRS89 by RDNAPTRANS2018 (variant 1). See README.md.
 */
import { createTransformer, type CrsInput, type TransformOptions } from './transformer.js';

export { SUPPORTED_CRS, canonicalCrsUri, parseCrsUri, type CrsDefinition, type CrsId, type CrsUri, type Frame, type GeographicArea } from './crs.js';
export { CrsError, CrsOutOfBoundsError, GridUnavailableError, InvalidCoordinatesError, UnknownCrsError, type CrsErrorCode } from './errors.js';
export { transformBbox, transformGeometry, type Bbox, type Geometry, type Position } from './geometry.js';
export { GRID_DIR_ENV, gridPath, setGridDirectory } from './grid.js';
export { DEFAULT_COORDINATE_EPOCH } from './itrf.js';
export { RDNAPTRANS_AREA, etrs89ToRd, geoidHeight, loadRdnaptransGrids, rdToEtrs89 } from './rdnaptrans.js';
export { createTransformer, type CrsInput, type TransformOptions, type Transformer } from './transformer.js';

/**
 * Transforms one position (axis order of each CRS; a third ordinate is the
 * height and is converted too). For many points use createTransformer once.
 */
export function transform(position: readonly number[], fromCrs: CrsInput, toCrs: CrsInput, options?: TransformOptions): number[] {
  return createTransformer(fromCrs, toCrs, options).transform(position);
}
