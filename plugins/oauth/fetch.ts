import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/** How the plugin reaches an authorization server: an agent that trusts extra CAs besides Node's, a timeout, a size cap. */
export interface AuthorizationServerFetch {
  agent?: HttpsAgent;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * An HTTPS agent that trusts Node's default CAs (its bundled roots, and `NODE_EXTRA_CA_CERTS`) and
 * the certificates of `ca` (PEM) besides: a `ca` option alone would replace the default store.
 * Where Node lists its default store (`tls.getCACertificates`, Node 22.15+) that list is extended;
 * else the default context is added to, with `NODE_EXTRA_CA_CERTS` again (`tls.rootCertificates`
 * and the store a context copies to add a CA both lack it).
 */
export function trustingAgent(ca: string | Buffer): HttpsAgent {
  const given = pemCertificates(String(ca));
  if (!given.length) throw new Error('oauth: fetch.ca holds no PEM certificate');
  const listDefault = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (listDefault) return new HttpsAgent({ secureContext: tls.createSecureContext({ ca: [...listDefault('default'), ...given] }) });
  const secureContext = tls.createSecureContext();
  const context = secureContext.context as { addCACert(pem: string): void };
  for (const certificate of [...extraCaCertificates(), ...given]) context.addCACert(certificate);
  return new HttpsAgent({ secureContext });
}

const pemCertificates = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[^]+?-----END CERTIFICATE-----/g) ?? [];

/** The certificates of `NODE_EXTRA_CA_CERTS`, as Node read them at start (a file it cannot read, Node only warns of). */
function extraCaCertificates(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return pemCertificates(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

/** A form POST (introspection); without it, a GET. */
export interface FormPost {
  form: Record<string, string>;
}

/**
 * HTTP(S) with its own CA list: the authorization server of a test or an internal network often has
 * a private CA, which the global `fetch` cannot be told about per request. `timeoutMs` bounds the
 * whole exchange (connect, headers, body): a server that trickles its answer is cut off too.
 */
export function fetchResponse(url: string, settings: AuthorizationServerFetch, signal?: AbortSignal, post?: FormPost): Promise<Response> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => req.destroy(new Error(`no complete answer from ${url} within ${settings.timeoutMs} ms`)), settings.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(deadline);
      reject(error);
    };
    const req = request(
      target,
      {
        method: post ? 'POST' : 'GET',
        headers: { accept: 'application/json', ...(post ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        signal,
        ...(settings.agent && target.protocol === 'https:' ? { agent: settings.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.maxBytes) req.destroy(new Error(`the answer of ${url} is larger than ${settings.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502, headers }));
        });
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(new Error(`the answer of ${url} was cut off`));
        });
      },
    );
    req.on('error', fail);
    req.end(post ? new URLSearchParams(post.form).toString() : undefined);
  });
}

export async function fetchJson(url: string, settings: AuthorizationServerFetch, post?: FormPost): Promise<Record<string, unknown>> {
  const response = await fetchResponse(url, settings, undefined, post);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const body: unknown = await response.json();
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error(`${url} did not answer a JSON object`);
  return body as Record<string, unknown>;
}
