import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How the plugin reaches an authorization server: trusted CAs (PEM) besides Node's, a timeout, a size cap. */
export interface AuthorizationServerFetch {
  ca?: string | Buffer;
  timeoutMs: number;
  maxBytes: number;
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
        ...(settings.ca && target.protocol === 'https:' ? { ca: settings.ca } : {}),
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
