import type { IncomingMessage } from 'node:http';
import type { OpenApiFragment, Operation, Plugin, RequestContext } from '../../src/plugin-api.js';
import { checkOptions, closest, closestOperation, optionsSchema, OptionsError, ProblemError, toJson, type HttpMethod } from '../../src/plugin-api.js';
import {
  KeyRing,
  SigningFailure,
  hasSignature,
  requestTarget,
  signMessage,
  signingKey,
  verificationKeys,
  verifyMessage,
  type FailureReason,
  type HeaderValues,
  type KeySource,
  type SigningKeyOptions,
  type VerificationKey,
} from './jws.js';

export type VerificationMode = 'off' | 'optional' | 'required';

export interface SigningOptions {
  /** Sign every response of a registry route with this key (and certificate). Off when not given. */
  signResponses?: SigningKeyOptions;
  /** Response headers the message signature covers when present, besides the content headers (default api-version, content-crs, etag, location). */
  responseHeaders?: string[];
  /** Verify signed requests: one mode for all, or per method and per operation id (operation wins). Default off. */
  verifyRequests?: VerificationMode | { default?: VerificationMode; methods?: Record<string, VerificationMode>; operations?: Record<string, VerificationMode> };
  /** The public keys of each application (client id), or a `clientKeyRing` to replace them at run time. */
  clients?: Record<string, KeySource[]> | KeyRing;
  /** Request headers a client's message signature may cover besides the content headers (default api-version, accept-crs, content-crs, if-match, if-none-match). */
  requestHeaders?: string[];
  /** How old a request's signing time (`sigT`) may be, in seconds (default 300). */
  maxAgeSeconds?: number;
  /** How far ahead of the registry's clock a signing time may be, in seconds (default 60). */
  maxSkewSeconds?: number;
}

const mode = { enum: ['off', 'optional', 'required'] };
const headerNames = { type: 'array', items: { type: 'string', minLength: 1 } };

/** The options' JSON Schema, checked when the plugin is made (the config file's `plugins.signing` takes files where code may pass keys). */
export const signingOptionsSchema = optionsSchema<SigningOptions>({
  signResponses: {
    type: 'object',
    additionalProperties: false,
    properties: {
      privateKey: {},
      privateKeyFile: { type: 'string', minLength: 1 },
      certificate: { type: 'string', minLength: 1 },
      certificateFile: { type: 'string', minLength: 1 },
      kid: { type: 'string', minLength: 1 },
      includeCertificate: { type: 'boolean' },
    },
  },
  responseHeaders: headerNames,
  verifyRequests: {
    oneOf: [
      mode,
      {
        type: 'object',
        additionalProperties: false,
        properties: { default: mode, methods: { type: 'object', additionalProperties: mode }, operations: { type: 'object', additionalProperties: mode } },
      },
    ],
  },
  clients: { type: 'object', description: 'Public keys per application (client id), or a clientKeyRing.' },
  requestHeaders: headerNames,
  maxAgeSeconds: { type: 'integer', minimum: 1 },
  maxSkewSeconds: { type: 'integer', minimum: 0 },
});

/** The methods the registry's operations have (a HEAD request runs its GET operation). */
const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];

type VerifyRequests = SigningOptions['verifyRequests'];
const pointer = (...segments: string[]) => segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * `verifyRequests` with its methods in lower case (`POST` is `post`), and the method keys that are no
 * method of an operation: a key that matches nothing would leave verification off without a word.
 */
function methodsChecked(verify: VerifyRequests): { verify: VerifyRequests; problems: { path: string; message: string }[] } {
  if (verify === null || typeof verify !== 'object' || typeof verify.methods !== 'object' || verify.methods === null) return { verify, problems: [] };
  const problems: { path: string; message: string }[] = [];
  const methods: Record<string, VerificationMode> = {};
  for (const [key, mode] of Object.entries(verify.methods)) {
    const method = key.toLowerCase();
    const path = pointer('verifyRequests', 'methods', key);
    if (!(METHODS as readonly string[]).includes(method)) {
      const suggestion = closest(key, METHODS);
      problems.push({ path, message: `is not a method of the registry's operations${suggestion ? ` (did you mean ${suggestion}?)` : ''}; allowed: ${METHODS.join(', ')} (in either case)` });
    } else if (method in methods && methods[method] !== mode) {
      problems.push({ path, message: `is ${method} again, with another mode` });
    } else {
      methods[method] = mode;
    }
  }
  return { verify: { ...verify, methods }, problems };
}

/** Refuses operation ids the registry does not serve (`zaak_read` for `zaak_retrieve`): verification would silently stay off. */
function checkOperationIds(verify: VerifyRequests, operations: readonly Operation[]): void {
  if (verify === undefined || typeof verify === 'string' || !verify.operations) return;
  const served = new Set(operations.map((operation) => operation.id));
  const problems = Object.keys(verify.operations)
    .filter((id) => !served.has(id))
    .map((id) => {
      const suggestion = closestOperation(id, served);
      return { path: pointer('verifyRequests', 'operations', id), message: `is not an operation of the core or of a plugin registered before signing${suggestion ? ` (did you mean ${suggestion}?)` : ''}` };
    });
  if (problems.length) throw new OptionsError('signing', problems);
}

/** The keys of every application, by `kid` and `x5t#S256`; call `replace` on it with `clientKeys(...)` to rotate. */
export function clientKeyRing(clients: Record<string, KeySource[]> = {}): KeyRing {
  return new KeyRing(clientKeys(clients));
}

/** Imports the keys of each application, marked with their owner. */
export function clientKeys(clients: Record<string, KeySource[]>): VerificationKey[] {
  return Object.entries(clients).flatMap(([owner, sources]) => sources.flatMap((source) => verificationKeys(source).map((key) => ({ ...key, owner }))));
}

const PROBLEMS: Record<FailureReason | 'key-not-client', { code: string; status: number; title: string }> = {
  malformed: { code: 'signature-malformed', status: 400, title: 'Een handtekening- of Digest-header is onjuist opgemaakt.' },
  duplicated: { code: 'signature-duplicated', status: 400, title: 'Een handtekening- of Digest-header komt meer dan eens voor.' },
  missing: { code: 'signature-missing', status: 401, title: 'Het verzoek moet ondertekend zijn met Payload-Signature, Message-Signature en Digest.' },
  invalid: { code: 'signature-invalid', status: 401, title: 'De handtekening is ongeldig.' },
  'digest-mismatch': { code: 'signature-digest-mismatch', status: 401, title: 'De Digest komt niet overeen met de inhoud van het verzoek.' },
  'covered-header-missing': { code: 'signature-covered-header-missing', status: 401, title: 'Een ondertekende header ontbreekt in het verzoek.' },
  'header-not-covered': { code: 'signature-header-not-covered', status: 401, title: 'Een header die ondertekend moet zijn, is niet ondertekend.' },
  'par-not-allowed': { code: 'signature-par-not-allowed', status: 401, title: 'De handtekening dekt een onderdeel dat niet is toegestaan.' },
  algorithm: { code: 'signature-algorithm-not-allowed', status: 401, title: 'Het algoritme van de handtekening is niet toegestaan; gebruik PS256.' },
  'protected-header': { code: 'signature-protected-header-invalid', status: 401, title: 'De beschermde header van de handtekening voldoet niet aan JAdES (b64, crit, sigD).' },
  'key-unknown': { code: 'signature-key-unknown', status: 401, title: 'De handtekening is gezet met een onbekende sleutel.' },
  'signing-time': { code: 'signature-time-invalid', status: 401, title: 'Het ondertekeningstijdstip (sigT) ontbreekt of valt buiten het toegestane venster.' },
  'key-not-client': { code: 'signature-key-not-client', status: 401, title: 'De handtekening is gezet met een sleutel van een andere applicatie.' },
};

/** Every occurrence of a request header, from the raw list: Node joins or drops duplicates in `headers`. */
function rawHeaders(req: IncomingMessage): HeaderValues {
  const byName = new Map<string, string[]>();
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index]!.toLowerCase();
    const values = byName.get(name) ?? [];
    values.push(req.rawHeaders[index + 1]!);
    byName.set(name, values);
  }
  return (name) => byName.get(name) ?? [];
}

function modeOf(options: SigningOptions['verifyRequests'], operation: Operation): VerificationMode {
  if (options === undefined || typeof options === 'string') return options ?? 'off';
  return options.operations?.[operation.id] ?? options.methods?.[operation.method] ?? options.default ?? 'off';
}

const signatureHeader = (description: string) => ({ description, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+\\.\\.[A-Za-z0-9_-]+$' } });
const DIGEST = { description: 'SHA-256 van de inhoud zoals verzonden (RFC 3230): `SHA-256=<base64>`.', schema: { type: 'string' } };
const PAYLOAD_SIGNATURE = 'Detached JWS (JAdES, PS256) over de Digest.';
const MESSAGE_SIGNATURE = 'Detached JWS (JAdES, PS256) over de request-target, de Digest en de headers in sigD.pars.';

/** The signature headers on the requests that are verified and on every response that is signed. */
function openApi(operations: readonly Operation[], options: SigningOptions): OpenApiFragment {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const mode = modeOf(options.verifyRequests, operation);
    if (operation.documented === false || mode === 'off') continue;
    const required = mode === 'required';
    const declared = {
      parameters: [
        { in: 'header', name: 'Digest', required, ...DIGEST },
        { in: 'header', name: 'Payload-Signature', required, ...signatureHeader(PAYLOAD_SIGNATURE) },
        { in: 'header', name: 'Message-Signature', required, ...signatureHeader(MESSAGE_SIGNATURE) },
      ],
    };
    const item = (paths[operation.path] ??= {});
    item[operation.method] = declared;
    if (operation.method === 'get' && operation.action === 'retrieve' && operation.openapi.head !== false) item.head = declared;
  }
  return { paths };
}

const OPERATION_KEYS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options']);

/** Every documented response is signed, errors and 304s included: each declares the headers. */
function signedResponses(document: Record<string, unknown>): void {
  const headers = { Digest: DIGEST, 'Payload-Signature': signatureHeader(PAYLOAD_SIGNATURE), 'Message-Signature': signatureHeader(MESSAGE_SIGNATURE) };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, { responses?: Record<string, Record<string, unknown>> }>>)) {
    for (const [key, operation] of Object.entries(item)) {
      if (!OPERATION_KEYS.has(key)) continue;
      for (const response of Object.values(operation.responses ?? {})) {
        if (!('$ref' in response)) response.headers = { ...(response.headers as object), ...headers };
      }
    }
  }
}

/** A response header as it will be sent: the response's own, else one set earlier on the Express response (`API-Version`). */
function responseHeader(ctx: RequestContext): HeaderValues {
  const own = new Map(Object.entries(ctx.response.headers).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => {
    const value = own.get(name) ?? ctx.req.res?.getHeader(name);
    if (value === undefined) return [];
    return Array.isArray(value) ? value : [String(value)];
  };
}

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
  headers[name] = value;
}

/**
 * JAdES detached signatures (PS256) on HTTP messages: `Payload-Signature` over the `Digest` of the body,
 * `Message-Signature` over the request target and headers. Verifies requests of the operations
 * configured, against the keys of the calling application, and signs responses with the registry's key.
 */
export function signing(options: SigningOptions = {}): Plugin {
  const { verify, problems } = methodsChecked(options?.verifyRequests);
  checkOptions('signing', signingOptionsSchema, options, problems);
  options = { ...options, verifyRequests: verify };
  const signer = options.signResponses && signingKey(options.signResponses);
  const keys = options.clients instanceof KeyRing ? options.clients : clientKeyRing(options.clients);
  const allowedPars = new Set((options.requestHeaders ?? ['api-version', 'accept-crs', 'content-crs', 'if-match', 'if-none-match']).map((name) => name.toLowerCase()));
  const responseHeaders = (options.responseHeaders ?? ['api-version', 'content-crs', 'etag', 'location']).map((name) => name.toLowerCase());
  /** The application whose key signed a request, checked against the principal once authenticated. */
  const signedBy = new WeakMap<RequestContext, VerificationKey>();

  return {
    name: 'signing',
    setup(api) {
      for (const { code, status, title } of Object.values(PROBLEMS)) api.defineProblem(code, status, title);
      checkOperationIds(options.verifyRequests, api.operations());
      api.addOpenApi(openApi(api.operations(), options));
      if (signer) api.addOpenApi(signedResponses);
    },

    // Before authentication: a forged or replayed message is refused before anything reads it.
    async onRequest(ctx) {
      const mode = modeOf(options.verifyRequests, ctx.operation);
      if (mode === 'off') return;
      const header = rawHeaders(ctx.req);
      if (mode === 'optional' && !hasSignature(header)) return;
      try {
        const key = await verifyMessage(
          { target: requestTarget(ctx.req.method, ctx.req.originalUrl), header, body: ctx.rawBody, allowedPars },
          { keys, maxAgeSeconds: options.maxAgeSeconds, maxSkewSeconds: options.maxSkewSeconds },
        );
        signedBy.set(ctx, key);
      } catch (error) {
        if (!(error instanceof SigningFailure)) throw error;
        throw new ProblemError(PROBLEMS[error.reason].code);
      }
    },

    authorize: {
      order: 'pre',
      handler(ctx) {
        const key = signedBy.get(ctx);
        if (key?.owner !== undefined && key.owner !== ctx.principal?.clientId) throw new ProblemError(PROBLEMS['key-not-client'].code);
      },
    },

    onResponse: {
      // Last: the signature covers the body and headers as the other hooks left them (register this plugin last).
      order: 'post',
      async handler(ctx) {
        if (!signer) return;
        const { response } = ctx;
        const bodyless = response.body === undefined || response.status === 204 || response.status === 304;
        // Serialized here as `send` would: the digest is over exactly these bytes.
        const payload = bodyless ? '' : toJson(response.body);
        if (!bodyless) {
          response.body = payload;
          if (!responseHeader(ctx)('content-type').length) setHeader(response.headers, 'Content-Type', 'application/json');
          setHeader(response.headers, 'Content-Length', String(Buffer.byteLength(payload)));
        }
        // No compression or proxy transformation may change the signed bytes (RFC 9111 5.2.2.6).
        const cacheControl = responseHeader(ctx)('cache-control');
        setHeader(response.headers, 'Cache-Control', [...cacheControl, 'no-transform'].join(', '));
        const signatures = await signMessage(
          signer,
          { target: requestTarget(ctx.req.method, ctx.req.originalUrl), header: responseHeader(ctx), body: payload },
          responseHeaders,
        );
        Object.assign(response.headers, signatures);
      },
    },
  };
}

export { KeyRing } from './jws.js';
export type { KeySource, SigningKeyOptions, VerificationKey } from './jws.js';
