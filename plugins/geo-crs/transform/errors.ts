/**
 * Typed errors of the CRS library. Each carries a stable `code` so that the
 * geo-crs plugin can map it to an HTTP problem (400 for the first three,
 * 500 for a missing grid, which is a deployment fault).
 */
export type CrsErrorCode =
  | 'UNKNOWN_CRS'
  | 'CRS_OUT_OF_BOUNDS'
  | 'INVALID_COORDINATES'
  | 'GRID_UNAVAILABLE';

export class CrsError extends Error {
  readonly code: CrsErrorCode;

  constructor(code: CrsErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The CRS URI (or id) is not one of the supported CRSs. */
export class UnknownCrsError extends CrsError {
  readonly crs: string;

  constructor(crs: string) {
    super('UNKNOWN_CRS', `Unsupported or unknown CRS: ${JSON.stringify(crs)}`);
    this.crs = crs;
  }
}

/** A coordinate lies outside the area where a CRS or transformation is valid. */
export class CrsOutOfBoundsError extends CrsError {
  readonly crs: string;
  readonly position: readonly number[];

  constructor(crs: string, position: readonly number[], detail: string) {
    super('CRS_OUT_OF_BOUNDS', `Coordinate (${position.join(', ')}) is outside the valid area of ${crs}: ${detail}`);
    this.crs = crs;
    this.position = [...position];
  }
}

/** Malformed input: non-numeric ordinates, wrong nesting, unknown geometry type, bad bbox. */
export class InvalidCoordinatesError extends CrsError {
  constructor(message: string) {
    super('INVALID_COORDINATES', message);
  }
}

/** The RDNAPTRANS2018 grid files could not be read. */
export class GridUnavailableError extends CrsError {
  readonly path: string;

  constructor(path: string, cause: unknown) {
    super(
      'GRID_UNAVAILABLE',
      `RDNAPTRANS2018 grid not readable at ${path} (${cause instanceof Error ? cause.message : String(cause)}). ` +
        'Copy the grids/ folder next to the module or bundle, or set ZAAKREGISTER_GRID_DIR.',
    );
    this.path = path;
  }
}
