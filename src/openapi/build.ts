import type { JsonSchema, Operation } from '../operation.js';
import type { OpenApiFragment, OpenApiTransform } from '../plugin-types.js';
export type { OpenApiFragment, OpenApiTransform };

export interface OpenApiInfo {
  /** The API's semantic version: the `API-Version` header, and its major the base path's `v1`. */
  version: string;
  /** The document's title (default `Zaken API`). */
  title?: string;
  /** The document's description. */
  description?: string;
  /** Who to contact about the API. */
  contact?: { name: string; email: string; url: string };
}

const API_VERSION_HEADER = {
  description: 'De volledige versie van de API (semver), bijvoorbeeld 1.8.0.',
  schema: { type: 'string', example: '1.8.0' },
};

const problemSchemas: Record<string, JsonSchema> = {
  FieldValidationError: {
    type: 'object',
    description: 'Formaat van validatiefouten.',
    required: ['name', 'code', 'reason'],
    properties: {
      name: { type: 'string', description: 'Naam van het veld met ongeldige gegevens (gepunt en geïndexeerd, bv. `verlenging.duur`).' },
      code: { type: 'string', description: 'Systeemcode die het type fout aangeeft.' },
      reason: { type: 'string', description: 'Uitleg wat er precies fout is met de gegevens.' },
    },
  },
  Fout: {
    type: 'object',
    description: 'Formaat van HTTP 4xx en 5xx fouten (RFC 9457 problem details).',
    required: ['code', 'title', 'status', 'detail', 'instance'],
    properties: {
      type: { type: 'string', description: 'URI-referentie naar het type fout.' },
      code: { type: 'string', description: 'Systeemcode die het type fout aangeeft.' },
      title: { type: 'string', description: 'Generieke titel voor het type fout.' },
      status: { type: 'integer', description: 'De HTTP-statuscode.' },
      detail: { type: 'string', description: 'Extra informatie bij de fout.' },
      instance: { type: 'string', description: 'URI (urn:uuid) van dit specifieke voorkomen van de fout.' },
    },
  },
};
problemSchemas.ValidatieFout = {
  ...problemSchemas.Fout,
  required: [...(problemSchemas.Fout.required as string[]), 'invalidParams'],
  properties: {
    ...(problemSchemas.Fout.properties as object),
    invalidParams: { type: 'array', items: { $ref: '#/components/schemas/FieldValidationError' } },
  },
};

const ERROR_RESPONSES: [string, string, string][] = [
  ['400', 'Bad request', 'ValidatieFout'],
  ['401', 'Unauthorized', 'Fout'],
  ['403', 'Forbidden', 'Fout'],
  ['404', 'Not found', 'Fout'],
  ['405', 'Method not allowed', 'Fout'],
  ['406', 'Not acceptable', 'Fout'],
  ['415', 'Unsupported media type', 'Fout'],
  ['500', 'Internal server error', 'Fout'],
];

function errorResponses(): Record<string, unknown> {
  return Object.fromEntries(
    ERROR_RESPONSES.map(([status, description, schema]) => [
      status,
      {
        description,
        headers: { 'API-Version': API_VERSION_HEADER },
        content: { 'application/problem+json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      },
    ]),
  );
}

function parameters(operation: Operation): unknown[] {
  const path = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: 'Unieke resource identifier (UUID4).',
    schema: { type: 'string', format: 'uuid' },
  }));
  const query = (operation.queryParameters ?? []).map((p) => ({
    name: p.name,
    in: 'query',
    required: false,
    description: p.description,
    schema: p.schema,
    ...(p.schema.type === 'array' ? { style: 'form', explode: false } : {}),
  }));
  return [...path, ...query];
}

function operationObject(operation: Operation, errors: Record<string, unknown>, head = false): Record<string, unknown> {
  const o = operation.openapi;
  const headers = { 'API-Version': API_VERSION_HEADER, ...(o.successHeaders ?? {}) };
  const content = o.responseSchema && !head ? { [o.contentType ?? 'application/json']: { schema: o.responseSchema } } : undefined;
  const result: Record<string, unknown> = {
    operationId: head ? operation.id.replace(/_retrieve$/, '_headers') : operation.id,
    summary: head ? `${o.summary} (alleen headers)` : o.summary,
    ...(o.description ? { description: o.description } : {}),
    ...(o.deprecated ? { deprecated: true } : {}),
    tags: o.tags,
    parameters: parameters(operation),
    responses: { [String(o.successStatus)]: { description: 'OK', headers, ...(content ? { content } : {}) }, ...errors },
  };
  if (operation.authenticated !== false) result.security = [{ 'JWT-Claims': operation.scopes ?? [] }];
  else result.security = [];
  if (operation.requestBody && !head) {
    result.requestBody = {
      required: true,
      content: { 'application/json': { schema: o.requestSchema ?? operation.requestBody } },
    };
  }
  return result;
}

/**
 * Deep-merges a fragment into the document. Fragments are copied, never aliased (several resources
 * share schemas), and lists are unions, so the same schema merged twice stays the same.
 */
function merge(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (existing && typeof existing === 'object' && !Array.isArray(existing) && value && typeof value === 'object' && !Array.isArray(value)) {
      merge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else if (Array.isArray(existing) && Array.isArray(value)) {
      const seen = new Set(existing.map((item) => JSON.stringify(item)));
      target[key] = [...existing, ...value.filter((item) => !seen.has(JSON.stringify(item))).map((item) => structuredClone(item))];
    } else {
      target[key] = structuredClone(value);
    }
  }
}

/** The OpenAPI 3.0 document, generated from the operations and the same JSON Schemas ajv validates with. */
export function buildOpenApi(info: OpenApiInfo, operations: readonly Operation[], fragments: readonly (OpenApiFragment | OpenApiTransform)[]): Record<string, unknown> {
  const errors = errorResponses();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    if (operation.documented === false) continue;
    const item = (paths[operation.path] ??= {});
    item[operation.method] = operationObject(operation, errors);
    if (operation.method === 'get' && operation.action === 'retrieve' && operation.openapi.head !== false) item.head = operationObject(operation, errors, true);
  }
  const document: Record<string, unknown> = {
    openapi: '3.0.3',
    info: {
      title: info.title ?? 'Zaken API',
      version: info.version,
      description:
        info.description ??
        'Een API om een zaakregistratiecomponent (ZRC) te benaderen, conform de Zaken API-standaard van VNG (Zaakgericht werken), geleverd door zaakregister.',
      contact: info.contact ?? { name: 'zaakregister', email: 'maintainers@zaakregister.dev', url: 'https://github.com/zaakregister/zaakregister' },
      license: { name: 'EUPL 1.2', url: 'https://opensource.org/licenses/EUPL-1.2' },
    },
    servers: [{ url: '/zaken/api/v1' }],
    paths,
    components: {
      securitySchemes: { 'JWT-Claims': { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { ...problemSchemas },
    },
    tags: [{ name: 'zaken', description: 'ZAAKen en wat erbij hoort.' }],
  };
  for (const fragment of fragments) if (typeof fragment !== 'function') merge(document, fragment as Record<string, unknown>);
  for (const transform of fragments) if (typeof transform === 'function') transform(document);
  return document;
}
