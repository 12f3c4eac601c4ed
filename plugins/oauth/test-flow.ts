/**
 * Test support: a real HTTPS client (its own CA, an optional client certificate, cookies) and the
 * authorization code flow against the example authorization server. Not a test file itself.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { SignJWT, exportJWK, type CryptoKey, type JWK } from 'jose';

const here = (name: string) => new URL(`./test-tls/${name}`, import.meta.url);
export const TLS = {
  ca: readFileSync(here('ca.pem')),
  serverCert: readFileSync(here('server.pem')),
  serverKey: readFileSync(here('server-key.pem')),
  clientA: { cert: readFileSync(here('client-a.pem')), key: readFileSync(here('client-a-key.pem')) },
  clientB: { cert: readFileSync(here('client-b.pem')), key: readFileSync(here('client-b-key.pem')) },
};

export interface ClientCertificate {
  cert: Buffer;
  key: Buffer;
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export interface HttpsCall {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  certificate?: ClientCertificate;
}

/** One HTTPS request, trusting the test CA; redirects are not followed. */
export function https(url: string, call: HttpsCall = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: call.method ?? 'GET', headers: call.headers, ca: TLS.ca, ...call.certificate, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

const form = (values: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();

export interface FlowClient {
  clientId: string;
  redirectUri: string;
  /** The private key of a confidential client (`private_key_jwt`); public clients have none. */
  key?: CryptoKey;
}

export interface AuthorizeRequest {
  scope: string;
  resource?: string;
  redirectUri?: string;
  /** `S256` (default), `plain`, or `none` to leave PKCE out. */
  pkce?: 'S256' | 'plain' | 'none';
}

/** Where the authorization request ended: a code, or the error the AS answered with. */
export type AuthorizeOutcome = { code: string; verifier: string } | { error: string; status: number };

/** The authorization request, login and consent (the AS automates them) up to the redirect back. */
export async function authorize(issuer: string, client: FlowClient, ask: AuthorizeRequest): Promise<AuthorizeOutcome> {
  const verifier = randomBytes(32).toString('base64url');
  const method = ask.pkce ?? 'S256';
  const challenge = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const redirectUri = ask.redirectUri ?? client.redirectUri;
  let url = `${issuer}/auth?${form({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: ask.scope,
    resource: ask.resource,
    state: randomUUID(),
    code_challenge: method === 'none' ? undefined : challenge,
    code_challenge_method: method === 'none' ? undefined : method,
  })}`;
  const cookies = new Map<string, string>();
  for (let hops = 0; hops < 10; hops++) {
    const answer = await https(url, { headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const cookie of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair.split('=');
      cookies.set(name, value.join('='));
    }
    const location = answer.headers.location;
    // oidc-provider's error page names the error as `<strong>error</strong>: invalid_request`.
    if (typeof location !== 'string') return { error: /error<\/strong>: ([a-z_]+)/.exec(answer.text)?.[1] ?? 'no_redirect', status: answer.status };
    const next = new URL(location, url);
    if (next.href.startsWith(redirectUri)) {
      const code = next.searchParams.get('code');
      return code ? { code, verifier } : { error: next.searchParams.get('error') ?? 'unknown', status: answer.status };
    }
    url = next.href;
  }
  throw new Error('too many redirects');
}

/** A `private_key_jwt` client assertion (PS256) for the issuer. */
function clientAssertion(issuer: string, client: FlowClient): Promise<string> {
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'PS256' })
    .setIssuer(client.clientId)
    .setSubject(client.clientId)
    .setAudience(issuer)
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(client.key!);
}

export interface TokenCall {
  certificate?: ClientCertificate;
  /** A DPoP proof maker: binds the token to its key. */
  dpop?: DpopKey;
}

/** A token request with client authentication (or `client_id` alone for a public client). */
export async function token(issuer: string, client: FlowClient, grant: Record<string, string>, call: TokenCall = {}): Promise<HttpsAnswer> {
  const authentication = client.key
    ? { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: await clientAssertion(issuer, client) }
    : { client_id: client.clientId };
  const endpoint = `${issuer}/token`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (call.dpop) headers.dpop = await call.dpop.proof('POST', endpoint);
  return https(endpoint, { method: 'POST', headers, body: form({ ...grant, ...authentication }), certificate: call.certificate });
}

/** The key of a DPoP client and the proofs it signs (RFC 9449 §4.2). */
export class DpopKey {
  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly jwk: JWK,
  ) {}

  static async create(keys: { privateKey: CryptoKey; publicKey: CryptoKey }): Promise<DpopKey> {
    return new DpopKey(keys.privateKey, await exportJWK(keys.publicKey));
  }

  proof(htm: string, htu: string, accessToken?: string, claims: Record<string, unknown> = {}): Promise<string> {
    const ath = accessToken ? createHash('sha256').update(accessToken).digest('base64url') : undefined;
    return new SignJWT({ htm, htu, jti: randomUUID(), ...(ath ? { ath } : {}), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: this.jwk })
      .setIssuedAt()
      .sign(this.privateKey);
  }
}
