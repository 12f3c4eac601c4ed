import {
  KeyRing,
  hasSignature,
  requestTarget,
  signMessage,
  verificationKeys,
  verifyMessage,
  SigningFailure,
  type HeaderValues,
  type KeySource,
  type SigningKey,
  type VerificationKey,
} from './jws.js';

/**
 * `zaakregister/signing`: signs requests to a registry with the signing plugin and verifies its
 * signed responses, in the plugin's wire format (see plugins/signing/README.md).
 */

export interface RequestToSign {
  method: string;
  url: string | URL;
  /** The headers the request will be sent with. */
  headers?: Record<string, string>;
  /** The body exactly as it will be sent (after any content encoding). */
  body?: Uint8Array | string;
  /** Headers the message signature covers besides the content headers present (e.g. `api-version`, `accept-crs`). */
  pars?: string[];
}

/** The request's headers plus `Digest`, `Payload-Signature` and `Message-Signature`, to send as they are. */
export async function signRequest(signer: SigningKey, request: RequestToSign): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const signed = new Map(Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  // What fetch adds on its own, signed as it will go over the wire.
  if (!signed.has('host')) signed.set('host', url.host);
  if (request.body?.length && !signed.has('content-length')) signed.set('content-length', String(Buffer.byteLength(request.body)));
  const header: HeaderValues = (name) => (signed.has(name) ? [signed.get(name)!] : []);
  const signatures = await signMessage(signer, { target: requestTarget(request.method, url.pathname + url.search), header, body: request.body }, request.pars);
  return { ...request.headers, ...signatures };
}

export interface ResponseToVerify {
  /** The request the response answers. */
  method: string;
  url: string | URL;
  headers: Headers | Record<string, string | string[]>;
  /** The body bytes as received (undefined for a HEAD request or a 304). */
  body?: Uint8Array;
}

export interface VerifyResponseOptions {
  /** The registry's public keys (certificate, JWK, JWKS), or a KeyRing of them. */
  keys: KeySource[] | KeyRing;
  /** Headers the registry may cover besides the content headers (default api-version, content-crs, etag, location). */
  pars?: string[];
  maxAgeSeconds?: number;
  maxSkewSeconds?: number;
}

function headerValues(headers: ResponseToVerify['headers']): HeaderValues {
  if (headers instanceof Headers) {
    return (name) => {
      const value = headers.get(name);
      return value === null ? [] : [value];
    };
  }
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value : [value]]));
  return (name) => lower.get(name) ?? [];
}

/**
 * Verifies a registry's signed response; throws a `SigningFailure` (its `reason` says why) when it is
 * unsigned or does not verify. Returns the key it was signed with.
 */
export async function verifyResponse(response: ResponseToVerify, options: VerifyResponseOptions): Promise<VerificationKey> {
  const header = headerValues(response.headers);
  if (!hasSignature(header)) throw new SigningFailure('missing', 'the response is not signed');
  const url = new URL(response.url);
  const keys = options.keys instanceof KeyRing ? options.keys : new KeyRing(options.keys.flatMap(verificationKeys));
  return verifyMessage(
    {
      target: requestTarget(response.method, url.pathname + url.search),
      header,
      body: response.body,
      bodyless: response.method.toUpperCase() === 'HEAD',
      allowedPars: new Set((options.pars ?? ['api-version', 'content-crs', 'etag', 'location']).map((name) => name.toLowerCase())),
    },
    { keys, maxAgeSeconds: options.maxAgeSeconds, maxSkewSeconds: options.maxSkewSeconds },
  );
}

export {
  KeyRing,
  SigningFailure,
  signingKey,
  verificationKeys,
  digestOf,
  signingInput,
  requestTarget,
  protectedHeader,
  HTTP_HEADERS_MECHANISM,
  type FailureReason,
  type KeySource,
  type SigningKey,
  type SigningKeyOptions,
  type VerificationKey,
} from './jws.js';
