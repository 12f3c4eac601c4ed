import { SignJWT } from 'jose';

/** Credentials for a remote ZGW API: the registry signs a ZGW JWT (HS256) with them. */
export interface RemoteCredentials {
  clientId: string;
  secret: string;
}

export interface RemoteOptions {
  /**
   * Hosts (`host` or `host:port`) the registry may fetch from. Anything else is refused before a
   * connection is made: the SSRF guard for URLs that clients send.
   */
  allowedHosts: string[];
  /** Per request, default 5000 ms. */
  timeoutMs?: number;
  /** Largest response body accepted, default 1 MiB. */
  maxBytes?: number;
  /** Credentials per host (`host` or `host:port`). */
  credentials?: Record<string, RemoteCredentials>;
}

/**
 * Why fetching a remote resource failed: `not-allowed` (host not in the allow-list), `timeout`,
 * `network`, `too-large`, `status` (not 200), `not-json`, `invalid-resource` (not the expected shape).
 */
export type RemoteFailure = 'not-allowed' | 'timeout' | 'network' | 'too-large' | 'status' | 'not-json' | 'invalid-resource';

export class RemoteError extends Error {
  constructor(
    readonly reason: RemoteFailure,
    readonly url: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

export interface RemoteClient {
  /** GET a JSON document; throws `RemoteError` unless the answer is 200 with a JSON body. */
  getJson<T = unknown>(url: string): Promise<T>;
  isAllowed(url: string): boolean;
}

function hostKeys(url: URL): string[] {
  return [url.host.toLowerCase(), url.hostname.toLowerCase()];
}

export function remoteClient(options: RemoteOptions): RemoteClient {
  const allowed = new Set(options.allowedHosts.map((h) => h.toLowerCase()));
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;

  function parse(url: string): URL | undefined {
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  function isAllowed(url: string): boolean {
    const parsed = parse(url);
    return !!parsed && !parsed.username && !parsed.password && hostKeys(parsed).some((key) => allowed.has(key));
  }

  async function authorization(url: URL): Promise<Record<string, string>> {
    const credentials = hostKeys(url).map((key) => options.credentials?.[key]).find(Boolean);
    if (!credentials) return {};
    const token = await new SignJWT({ client_id: credentials.clientId, user_id: '', user_representation: '' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(credentials.clientId)
      .setIssuedAt()
      .sign(new TextEncoder().encode(credentials.secret));
    return { authorization: `Bearer ${token}` };
  }

  async function readCapped(response: Response, url: string): Promise<string> {
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new RemoteError('too-large', url, `response of ${declared} bytes exceeds ${maxBytes}`);
    const reader = response.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new RemoteError('too-large', url, `response exceeds ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  return {
    isAllowed,
    async getJson<T>(url: string): Promise<T> {
      const parsed = parse(url);
      if (!parsed || !isAllowed(url)) throw new RemoteError('not-allowed', url, `host of ${url} is not in the allowed hosts`);
      let response: Response;
      try {
        response = await fetch(parsed, {
          headers: { accept: 'application/json', 'accept-crs': 'EPSG:4326', ...(await authorization(parsed)) },
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'TimeoutError' || name === 'AbortError') throw new RemoteError('timeout', url, `no answer from ${url} within ${timeoutMs} ms`);
        throw new RemoteError('network', url, `cannot fetch ${url}: ${(error as Error).message}`);
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new RemoteError('status', url, `${url} answered ${response.status}`, response.status);
      }
      const text = await readCapped(response, url);
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new RemoteError('not-json', url, `${url} did not answer with JSON`);
      }
    },
  };
}
