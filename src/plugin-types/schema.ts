/** The shapes of the OpenAPI document and of problem answers that operations and plugins build on. */

/** A JSON Schema in the OpenAPI 3.0 dialect: one object serves ajv validation and the served document. */
export type JsonSchema = Record<string, unknown>;

/**
 * `true` when A and B are the same type, `never` otherwise: `const matches: Exact<keyof typeof
 * properties, keyof MyOptions> = true` stops the compiler when an options schema and its interface
 * name different keys.
 */
export type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One entry of `invalidParams`: a dotted/indexed field name (`verlenging.duur`, `relevanteAndereZaken.0`). */
export interface InvalidParam {
  name: string;
  code: string;
  reason: string;
}

/**
 * A change to the whole document, run after every fragment is merged: for what a fragment cannot
 * name in advance, such as a header on every response of every operation.
 */
export type OpenApiTransform = (document: Record<string, unknown>) => void;

/** Part of an OpenAPI document that plugins merge in (components, extra paths, tags). */
export interface OpenApiFragment {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; [section: string]: Record<string, unknown> | undefined };
  tags?: { name: string; description?: string }[];
}

/** One version of the API a registry serves, at its own base path (`…/v{major}`). */
export interface ApiVersion {
  /** Full semver: `info.version` of its OpenAPI document and the `API-Version` header of its responses. */
  version: string;
  /** Adjusts this version's OpenAPI document (documents a changed representation, a deprecation). */
  document?: (document: Record<string, unknown>) => void;
  /** Headers on every response of this version, beside `API-Version` (a deprecation schedule). */
  headers?: Record<string, string>;
}
