import { X509Certificate, createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FlattenedSign, decodeProtectedHeader, flattenedVerify } from 'jose';

/** A JSON Web Key (RFC 7517) as Node types it: jose's type is ESM-only, and CommonJS projects read these declarations too. */
type JWK = JsonWebKey & { kid?: string };

/**
 * The wire format shared by the registry's plugin and the client helper: a JAdES detached compact JWS
 * (PS256, unencoded payload) over an HTTP message's digest (`Payload-Signature`) and over its headers
 * (`Message-Signature`). Everything here is pure: no knowledge of Express or fetch.
 */

/** The identifier of the JAdES HTTP headers mechanism (ETSI TS 119 182-1, `sigD.mId`). */
export const HTTP_HEADERS_MECHANISM = 'http://uri.etsi.org/19182/HttpHeaders';
const ALGORITHM = 'PS256';
const REQUEST_TARGET = '(request-target)';
const MIN_MODULUS_BITS = 2048;
/** The JAdES parameters jose must accept in `crit` (it knows `b64` itself); true: they must be protected. */
const JADES_CRIT = { sigT: true, sigD: true };
/** Headers a message signature must cover whenever the message has them (besides the request target and digest). */
const CONTENT_HEADERS = ['host', 'origin', 'content-encoding', 'content-type', 'content-length'];
/** A detached compact JWS: header, empty payload, signature. */
const DETACHED_JWS = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]+)$/;

/** Why a signature is refused; `SigningFailure.reason` names the cause, the plugin maps it to a problem code. */
export type FailureReason =
  | 'malformed'
  | 'duplicated'
  | 'missing'
  | 'invalid'
  | 'digest-mismatch'
  | 'covered-header-missing'
  | 'header-not-covered'
  | 'par-not-allowed'
  | 'algorithm'
  | 'protected-header'
  | 'key-unknown'
  | 'signing-time';

export class SigningFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'SigningFailure';
  }
}

/** `SHA-256=<base64>` (RFC 3230) of the bytes as sent. */
export const digestOf = (body: Uint8Array | string | undefined) => `SHA-256=${createHash('sha256').update(body ?? '').digest('base64')}`;

/** The SHA-256 value of a `Digest` header (which may list several algorithms), or undefined. */
function sha256FromDigest(header: string): string | undefined {
  for (const part of header.split(',')) {
    const match = /^\s*sha-256=(.+?)\s*$/i.exec(part);
    if (match) return `SHA-256=${match[1]}`;
  }
  return undefined;
}

/** Reads a header of the message: every value it occurs with, in order (empty when absent). */
export type HeaderValues = (name: string) => string[];

/** `(request-target)`: lower-case method, space, path with query as sent. */
export const requestTarget = (method: string, pathWithQuery: string) => `${method.toLowerCase()} ${pathWithQuery}`;

/**
 * The signing input of a message signature: one line per par, `name: value` with the name in lower
 * case and repeated headers joined with `, ` as HTTP does, lines joined by `\n` without a final one.
 */
export function signingInput(pars: readonly string[], target: string, header: HeaderValues): string {
  return pars
    .map((par) => {
      if (par === REQUEST_TARGET) return `${REQUEST_TARGET}: ${target}`;
      const values = header(par);
      if (!values.length) throw new SigningFailure('covered-header-missing', `covered header "${par}" is missing`);
      return `${par}: ${values.map((value) => value.trim()).join(', ')}`;
    })
    .join('\n');
}

/** The protected header of a signature: JAdES over HTTP headers, unencoded detached payload. */
export interface SignatureHeader {
  alg: typeof ALGORITHM;
  b64: false;
  crit: string[];
  sigT: string;
  sigD: { mId: string; pars: string[] };
  kid?: string;
  'x5t#S256'?: string;
  x5c?: string[];
}

/** JAdES `sigT`: UTC to the second, `YYYY-MM-DDThh:mm:ssZ`. */
export const signingTime = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;

/** A key to sign with: the private key and how receivers find its public half. */
export interface SigningKey {
  key: KeyObject;
  kid?: string;
  x5tS256?: string;
  x5c?: string[];
}

export interface SigningKeyOptions {
  /** PKCS#8/PKCS#1 PEM, a private JWK, or a KeyObject (or `privateKeyFile`). */
  privateKey?: string | JWK | KeyObject;
  /** A file holding the private key as PEM or JWK JSON. */
  privateKeyFile?: string;
  /** The certificate of the key (PEM); its `x5t#S256` identifies the key. */
  certificate?: string;
  /** A file holding that certificate (PEM). */
  certificateFile?: string;
  /** Identifies the key when there is no certificate (or besides it). */
  kid?: string;
  /** Send the certificate in `x5c` as well (default false). */
  includeCertificate?: boolean;
}

function assertKeySize(key: KeyObject, what: string): void {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') throw new Error(`${what} is not an RSA key: PS256 needs one`);
  if (!bits || bits < MIN_MODULUS_BITS) throw new Error(`${what} has ${bits ?? 'unknown'} bits: PS256 needs at least ${MIN_MODULUS_BITS}`);
}

/** A key file's text: JSON (a JWK) parsed, PEM as is. */
function readKeyFile(file: string): string | JWK {
  const text = readFileSync(file, 'utf8');
  return text.trimStart().startsWith('{') ? (JSON.parse(text) as JWK) : text;
}

const x5tS256Of = (certificate: X509Certificate) => createHash('sha256').update(certificate.raw).digest('base64url');

/** Imports the key once: signing then costs only the RSA operation. */
export function signingKey(options: SigningKeyOptions): SigningKey {
  const privateKey = options.privateKey ?? (options.privateKeyFile && readKeyFile(options.privateKeyFile));
  if (!privateKey) throw new Error('a signing key needs privateKey or privateKeyFile');
  const key =
    typeof privateKey === 'string' ? createPrivateKey(privateKey) : 'asymmetricKeyType' in privateKey ? (privateKey as KeyObject) : createPrivateKey({ key: privateKey as JWK, format: 'jwk' } as never);
  assertKeySize(key, 'the signing key');
  const certificatePem = options.certificate ?? (options.certificateFile && readFileSync(options.certificateFile, 'utf8'));
  const certificate = certificatePem ? new X509Certificate(certificatePem) : undefined;
  if (certificate && !certificate.checkPrivateKey(key)) throw new Error('the signing certificate does not belong to the signing key');
  if (!certificate && !options.kid) throw new Error('a signing key needs a certificate or a kid to be found by');
  return {
    key,
    kid: options.kid,
    x5tS256: certificate && x5tS256Of(certificate),
    x5c: certificate && options.includeCertificate ? [certificate.raw.toString('base64')] : undefined,
  };
}

/** The JWS protected header for a signature with `signer` over `pars` at `time`. */
export function protectedHeader(signer: SigningKey, pars: string[], time: Date): SignatureHeader {
  return {
    alg: ALGORITHM,
    b64: false,
    crit: ['b64', 'sigT', 'sigD'],
    sigT: signingTime(time),
    sigD: { mId: HTTP_HEADERS_MECHANISM, pars },
    ...(signer.kid ? { kid: signer.kid } : {}),
    ...(signer.x5tS256 ? { 'x5t#S256': signer.x5tS256 } : {}),
    ...(signer.x5c ? { x5c: signer.x5c } : {}),
  };
}

/** A detached compact JWS (`header..signature`) over `input`, unencoded (`b64: false`). */
async function signDetached(signer: SigningKey, header: SignatureHeader, input: string): Promise<string> {
  const jws = await new FlattenedSign(new TextEncoder().encode(input)).setProtectedHeader(header as never).sign(signer.key, { crit: JADES_CRIT });
  return `${jws.protected}..${jws.signature}`;
}

/** A public key a signature may be made with, and whom it belongs to. */
export interface VerificationKey {
  key: KeyObject;
  kid?: string;
  x5tS256?: string;
  /** The application (client id) the key is registered for; undefined for the registry's own keys. */
  owner?: string;
}

/** Where public keys come from: a JWK, a JWKS, a PEM certificate or public key, or a file holding one of those. */
export type KeySource = { jwk: JWK } | { jwks: { keys: JWK[] } } | { certificate: string } | { publicKey: string; kid: string } | { file: string };

function fromJwk(jwk: JWK): VerificationKey {
  const key = createPublicKey({ key: jwk, format: 'jwk' } as never);
  assertKeySize(key, `the key ${jwk.kid ?? ''}`.trim());
  return { key, kid: jwk.kid };
}

function fromPem(pem: string, kid?: string): VerificationKey[] {
  if (pem.includes('BEGIN CERTIFICATE')) {
    const certificate = new X509Certificate(pem);
    assertKeySize(certificate.publicKey, `the certificate ${certificate.subject}`);
    return [{ key: certificate.publicKey, x5tS256: x5tS256Of(certificate), kid }];
  }
  if (!kid) throw new Error('a PEM public key has no identifier: give it a kid, or give a certificate');
  const key = createPublicKey(pem);
  assertKeySize(key, `the public key ${kid}`);
  return [{ key, kid }];
}

/** Imports the public keys of a source once (refusing RSA keys under 2048 bits). */
export function verificationKeys(source: KeySource): VerificationKey[] {
  if ('jwk' in source) return [fromJwk(source.jwk)];
  if ('jwks' in source) return source.jwks.keys.map(fromJwk);
  if ('certificate' in source) return fromPem(source.certificate);
  if ('publicKey' in source) return fromPem(source.publicKey, source.kid);
  const content = readKeyFile(source.file) as string | JWK | { keys: JWK[] };
  if (typeof content === 'string') return fromPem(content);
  return 'keys' in content ? (content as { keys: JWK[] }).keys.map(fromJwk) : [fromJwk(content)];
}

/** Keys by identifier (`kid` and `x5t#S256`), replaceable at run time for rotation. */
export class KeyRing {
  private byId = new Map<string, VerificationKey>();

  constructor(keys: VerificationKey[] = []) {
    this.replace(keys);
  }

  /** Swaps in a new set of keys at once: several may be valid during a rotation. */
  replace(keys: VerificationKey[]): void {
    const byId = new Map<string, VerificationKey>();
    for (const key of keys) {
      if (!key.kid && !key.x5tS256) throw new Error('a verification key needs a kid or a certificate');
      if (key.kid) byId.set(`kid:${key.kid}`, key);
      if (key.x5tS256) byId.set(`x5t:${key.x5tS256}`, key);
    }
    this.byId = byId;
  }

  find(header: { kid?: unknown; 'x5t#S256'?: unknown }): VerificationKey | undefined {
    if (typeof header['x5t#S256'] === 'string') return this.byId.get(`x5t:${header['x5t#S256']}`);
    if (typeof header.kid === 'string') return this.byId.get(`kid:${header.kid}`);
    return undefined;
  }
}

/** The protected header of a signature header value, after the format checks of the spec. */
function parseSignature(value: string, name: string): { encodedHeader: string; signature: string; header: Record<string, unknown> } {
  const match = DETACHED_JWS.exec(value.trim());
  if (!match) throw new SigningFailure('malformed', `${name} is not a detached compact JWS`);
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(`${match[1]}..${match[2]}`) as Record<string, unknown>;
  } catch {
    throw new SigningFailure('malformed', `${name} has a protected header that is not base64url JSON`);
  }
  return { encodedHeader: match[1]!, signature: match[2]!, header };
}

export interface VerifyOptions {
  keys: KeyRing;
  /** How old a signing time may be, in seconds (default 300). */
  maxAgeSeconds?: number;
  /** How far in the future a signing time may be, for clock skew, in seconds (default 60). */
  maxSkewSeconds?: number;
}

/** Checks the protected header's JAdES parameters; returns its pars. */
function checkHeader(header: Record<string, unknown>, name: string, options: VerifyOptions): string[] {
  if (header.alg !== ALGORITHM) throw new SigningFailure('algorithm', `${name} uses alg ${String(header.alg)}; only ${ALGORITHM} is accepted`);
  const crit = Array.isArray(header.crit) ? header.crit : [];
  if (header.b64 !== false || !crit.includes('b64') || !crit.includes('sigD')) {
    throw new SigningFailure('protected-header', `${name} must have b64 false and crit listing b64 and sigD`);
  }
  const sigD = header.sigD as { mId?: unknown; pars?: unknown } | undefined;
  if (sigD?.mId !== HTTP_HEADERS_MECHANISM || !Array.isArray(sigD.pars) || !sigD.pars.every((par) => typeof par === 'string')) {
    throw new SigningFailure('protected-header', `${name} must have sigD with mId ${HTTP_HEADERS_MECHANISM} and a list of pars`);
  }
  const time = typeof header.sigT === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(header.sigT) ? Date.parse(header.sigT) : NaN;
  const now = Date.now();
  if (Number.isNaN(time)) throw new SigningFailure('signing-time', `${name} has no signing time (sigT) of the form YYYY-MM-DDThh:mm:ssZ`);
  if (time < now - (options.maxAgeSeconds ?? 300) * 1000 || time > now + (options.maxSkewSeconds ?? 60) * 1000) {
    throw new SigningFailure('signing-time', `${name} was made at ${header.sigT}, outside the accepted window`);
  }
  return sigD.pars.map((par: string) => par.toLowerCase());
}

/** Verifies one detached signature over `input`; returns the key it was made with. */
async function verifyOne(value: string, name: string, input: (pars: string[]) => string, options: VerifyOptions): Promise<VerificationKey> {
  const { encodedHeader, signature, header } = parseSignature(value, name);
  const pars = checkHeader(header, name, options);
  const key = options.keys.find(header);
  if (!key) throw new SigningFailure('key-unknown', `${name} is made with a key that is not registered`);
  const payload = input(pars);
  try {
    await flattenedVerify({ protected: encodedHeader, payload, signature }, key.key, { algorithms: [ALGORITHM], crit: JADES_CRIT });
  } catch {
    throw new SigningFailure('invalid', `${name} does not verify`);
  }
  return key;
}

/** A message as the verifier sees it: its signature headers and a way to read the others. */
export interface SignedMessage {
  /** `(request-target)` of the request (of the request answered, for a response). */
  target: string;
  header: HeaderValues;
  /** The body bytes as sent (undefined or empty without one). */
  body?: Uint8Array;
  /** Whether the message has no body by its nature (a 304, a HEAD answer): its `Digest` is then not recomputed. */
  bodyless?: boolean;
  /** Headers a message signature may cover besides `CONTENT_HEADERS`, digest and the request target. */
  allowedPars: ReadonlySet<string>;
}

function single(message: SignedMessage, name: string): string | undefined {
  const values = message.header(name);
  if (values.length > 1) throw new SigningFailure('duplicated', `${name} occurs ${values.length} times`);
  return values[0];
}

/** Whether the message carries any signature header (to tell "unsigned" from "badly signed"). */
export const hasSignature = (header: HeaderValues) => header('payload-signature').length > 0 || header('message-signature').length > 0;

/**
 * Verifies both signatures of a message: the payload signature over its `Digest`, the digest against
 * the body, and the message signature over the headers it lists. Returns the key both were made with.
 */
export async function verifyMessage(message: SignedMessage, options: VerifyOptions): Promise<VerificationKey> {
  const payloadSignature = single(message, 'payload-signature');
  const messageSignature = single(message, 'message-signature');
  const digest = single(message, 'digest');
  if (!payloadSignature || !messageSignature) throw new SigningFailure('missing', 'Payload-Signature and Message-Signature are both required');
  if (!digest) throw new SigningFailure('missing', 'a signed message needs a Digest header');
  const sha256 = sha256FromDigest(digest);
  if (!sha256) throw new SigningFailure('malformed', 'Digest has no SHA-256 value');
  if (!message.bodyless && sha256 !== digestOf(message.body)) throw new SigningFailure('digest-mismatch', 'Digest does not match the body');

  const payloadKey = await verifyOne(
    payloadSignature,
    'Payload-Signature',
    (pars) => {
      if (pars.length !== 1 || pars[0] !== 'digest') throw new SigningFailure('par-not-allowed', 'Payload-Signature must cover only digest');
      return signingInput(pars, message.target, message.header);
    },
    options,
  );
  const messageKey = await verifyOne(
    messageSignature,
    'Message-Signature',
    (pars) => {
      const notAllowed = pars.find((par) => par !== REQUEST_TARGET && par !== 'digest' && !CONTENT_HEADERS.includes(par) && !message.allowedPars.has(par));
      if (notAllowed) throw new SigningFailure('par-not-allowed', `Message-Signature may not cover "${notAllowed}"`);
      if (new Set(pars).size !== pars.length) throw new SigningFailure('par-not-allowed', 'Message-Signature lists a par twice');
      const uncovered = [REQUEST_TARGET, 'digest', ...CONTENT_HEADERS.filter((name) => message.header(name).length)].find((name) => !pars.includes(name));
      if (uncovered) throw new SigningFailure('header-not-covered', `Message-Signature must cover "${uncovered}"`);
      return signingInput(pars, message.target, message.header);
    },
    options,
  );
  if (payloadKey !== messageKey) throw new SigningFailure('invalid', 'Payload-Signature and Message-Signature are made with different keys');
  return messageKey;
}

/** The headers that sign a message: `Digest`, `Payload-Signature`, `Message-Signature`. */
export interface SignatureHeaders {
  Digest: string;
  'Payload-Signature': string;
  'Message-Signature': string;
}

/**
 * Signs a message. `header` reads the message's headers as they will be sent; `pars` are the headers
 * its message signature covers (besides the request target and digest, and the content headers present).
 */
export async function signMessage(
  signer: SigningKey,
  message: { target: string; header: HeaderValues; body?: Uint8Array | string },
  extraPars: readonly string[] = [],
  time = new Date(),
): Promise<SignatureHeaders> {
  const digest = digestOf(message.body);
  const header: HeaderValues = (name) => (name === 'digest' ? [digest] : message.header(name));
  const pars = [REQUEST_TARGET, ...CONTENT_HEADERS, ...extraPars.map((name) => name.toLowerCase()), 'digest'].filter(
    (par, index, all) => all.indexOf(par) === index && (par === REQUEST_TARGET || header(par).length > 0),
  );
  const [payload, whole] = await Promise.all([
    signDetached(signer, protectedHeader(signer, ['digest'], time), signingInput(['digest'], message.target, header)),
    signDetached(signer, protectedHeader(signer, pars, time), signingInput(pars, message.target, header)),
  ]);
  return { Digest: digest, 'Payload-Signature': payload, 'Message-Signature': whole };
}
