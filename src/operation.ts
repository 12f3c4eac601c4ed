import type { Knex } from 'knex';
import type { RequestContext } from './plugin.js';
import type { InvalidParam } from './problem.js';
import type { AccessSubject } from './resources/shared/access.js';

/** A JSON Schema in the OpenAPI 3.0 dialect: one object serves ajv validation and the served document. */
export type JsonSchema = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A query parameter an operation accepts; any other parameter is answered with 400 `unknown-parameters`. */
export interface QueryParameter {
  name: string;
  description?: string;
  /** Schema of the parsed value. `type: array` parameters are comma-separated in the URL. */
  schema: JsonSchema;
  /**
   * On the zaak lists (`zaak_list`, `zaak__zoek`): narrows the rows (and the count) when the parameter
   * is given, with the request at hand (what a hook found for it). Authorization still applies.
   */
  filter?: (query: Knex.QueryBuilder, value: unknown, ctx: RequestContext) => void;
}

/**
 * One endpoint: method, path, input schemas and what it does. The core's resources and plugins
 * register operations the same way; the pipeline wraps every one in the request lifecycle.
 */
export interface Operation {
  /** The operationId of the standard, e.g. `zaak_create`. */
  id: string;
  method: HttpMethod;
  /** OpenAPI path template relative to the base URL, e.g. `/zaken/{uuid}`. */
  path: string;
  /** The resource it acts on, e.g. `zaak`. */
  resource?: string;
  /** `list`, `retrieve`, `create`, `update`, `partial_update`, `destroy`, `search`, ... */
  action: string;
  /** Changes data: runs validate → transaction(beforeWrite → execute → afterWrite) → afterCommit. */
  write: boolean;
  /** False for public endpoints (the OpenAPI document); default true. */
  authenticated?: boolean;
  /** False to leave it out of the served OpenAPI document; default true. */
  documented?: boolean;
  /**
   * The scopes the standard requires, any one of them (`zaken.bijwerken | zaken.geforceerd-bijwerken`).
   * The core refuses (403) unless the principal holds one for every zaak the operation acts on.
   */
  scopes?: string[];
  /**
   * The zaken (type and confidentiality) the request acts on, once `load` ran; default: `ctx.zaak`.
   * None (lists): one of the scopes for any zaaktype suffices and the rows are filtered in SQL.
   */
  accessSubjects?: (ctx: RequestContext) => AccessSubject[];
  queryParameters?: QueryParameter[];
  requestBody?: JsonSchema;
  /**
   * After parsing, before the scope check: find what the request acts on (`ctx.current`, `ctx.zaak`;
   * for a new zaak, its zaaktype and confidentiality in `ctx.data`). Only what authorization needs:
   * nothing here may tell a client that is refused more than that something does not exist.
   */
  load?: (ctx: RequestContext) => Promise<void>;
  /**
   * After the scope check, before `authorize`: for writes, turn the body into `ctx.data` (checks,
   * defaults, derived values, resolved references). Default: data = body.
   */
  prepare?: (ctx: RequestContext) => Promise<void>;
  /**
   * Writes, after the `validate` hooks: the operation's own rules beyond the schema. Its errors join
   * those of the hooks in one 400, after them (the ZGW reference reports type mismatches before the
   * rules of the resource itself).
   */
  validate?: (ctx: RequestContext) => Promise<InvalidParam[]>;
  /**
   * Writes, first thing inside the transaction: lock the rows of the zaken the write acts on and set
   * `ctx.zaak` (and what `accessSubjects` answers) from them as they are now. The core then checks the
   * scopes and runs the `authorize` hooks again: a change committed since `load` (a zaak made more
   * confidential, a record moved) is decided on before anything is written, and the answer shows
   * nothing the client may not see.
   */
  lock?: (ctx: RequestContext) => Promise<void>;
  /** Do the work: read, or write within `ctx.tx`; set `ctx.response` (and `ctx.result` for writes). */
  execute: (ctx: RequestContext) => Promise<void>;
  /** OpenAPI details: summary, description, the 2xx response schema, extra response headers. */
  openapi: {
    summary: string;
    description?: string;
    tags?: string[];
    /** Schema of the success body, or undefined for 204/HEAD-like answers. */
    responseSchema?: JsonSchema;
    successStatus: number;
    successHeaders?: Record<string, { description: string; schema: JsonSchema }>;
    /** The request body as documented, when it differs from `requestBody` (e.g. a `$ref`). */
    requestSchema?: JsonSchema;
    /** Content type of the success body (default application/json). */
    contentType?: string;
    /** Retrieve operations: document HEAD (`*_headers`) too; default true. */
    head?: boolean;
  };
}

/**
 * The operation of the responses the router gives without one: an unknown path, a method the path
 * does not have, a body that cannot be read. `onResponse` hooks see it (a signature covers these too).
 */
export const UNROUTED: Operation = Object.freeze({
  id: 'unrouted',
  method: 'get',
  path: '',
  action: 'unrouted',
  write: false,
  authenticated: false,
  documented: false,
  execute: async () => {},
  openapi: { summary: '', successStatus: 200 },
});
