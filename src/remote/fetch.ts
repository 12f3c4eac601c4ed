import { signZgwJwt } from '../auth/sign.js';
import { currentRequest, REQUEST_ID_HEADER } from '../ops/request-scope.js';
import { startSpan } from '../ops/tracing.js';
import type { RemoteCallOptions, RemoteClient, RemoteCredentials, RemoteExchange, RemoteFailure, RemoteOptions } from '../plugin-types.js';
export type { RemoteCallOptions, RemoteClient, RemoteCredentials, RemoteExchange, RemoteFailure, RemoteOptions };

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

const TOKEN_REUSE_MS = 60_000;

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

  /** Tokens by the credentials they were signed with, with when (a monotonic clock, ms). */
  const tokens = new Map<RemoteCredentials, { token: Promise<string>; signedAt: number }>();

  /**
   * A token is reused for up to `TOKEN_REUSE_MS`: signing one per call was about 5% of a
   * notification's delivery CPU, and its `iat` stays well within what ZGW APIs accept (Open Zaak: an
   * hour, with leeway).
   */
  async function authorization(url: URL): Promise<Record<string, string>> {
    const credentials = hostKeys(url).map((key) => options.credentials?.[key]).find(Boolean);
    if (!credentials) return {};
    let signed = tokens.get(credentials);
    if (!signed || performance.now() - signed.signedAt > TOKEN_REUSE_MS) {
      const fresh = { token: signZgwJwt(credentials.clientId, credentials.secret), signedAt: performance.now() };
      tokens.set(credentials, (signed = fresh));
      fresh.token.catch(() => tokens.get(credentials) === fresh && tokens.delete(credentials));
    }
    return { authorization: `Bearer ${await signed.token}` };
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

  /**
   * One exchange with an allowed host, with its credentials and no redirects, under one deadline:
   * connecting, the headers and `read`ing the body all end by `timeoutMs` (a host that trickles its
   * body is as late as one that never answers).
   */
  async function exchange<T>(method: string, url: string, body: unknown, callerSignal: AbortSignal | undefined, read: (response: Response) => Promise<T>): Promise<T> {
    const parsed = parse(url);
    if (!parsed || !isAllowed(url)) throw new RemoteError('not-allowed', url, `host of ${url} is not in the allowed hosts`);
    const headers: Record<string, string> = { accept: 'application/json', 'accept-crs': 'EPSG:4326', ...(await authorization(parsed)) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // The remote's logs can then be matched with the request that caused the call.
    const requestId = currentRequest()?.id;
    if (requestId) headers[REQUEST_ID_HEADER] = requestId;
    const deadline = new AbortController();
    // A timer of our own, held until the exchange ends: an AbortSignal.timeout() that nothing refers to
    // any more (once fetch has the headers) may be garbage-collected before it fires.
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
    const started = performance.now();
    const span = startSpan(`${method} ${parsed.host}`, { 'http.request.method': method, 'server.address': parsed.host });
    let outcome: RemoteExchange['outcome'] = 'ok';
    try {
      const response = await fetch(parsed, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal,
      });
      return await read(response);
    } catch (error) {
      const failure =
        error instanceof RemoteError
          ? error
          : signal.aborted
            ? new RemoteError('timeout', url, `no complete answer from ${url} within ${timeoutMs} ms`)
            : new RemoteError('network', url, `cannot fetch ${url}: ${(error as Error).message}`);
      outcome = failure.reason;
      throw failure;
    } finally {
      clearTimeout(timer);
      span.span.setAttribute('zaakregister.remote.outcome', outcome);
      span.end(outcome === 'ok' ? undefined : outcome);
      options.onExchange?.({ host: parsed.host, outcome, seconds: (performance.now() - started) / 1000 });
    }
  }

  async function readJson<T>(response: Response, url: string): Promise<T | undefined> {
    const text = await readCapped(response, url);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RemoteError('not-json', url, `${url} did not answer with JSON`);
    }
  }

  async function refuseStatus(response: Response, url: string, method: string): Promise<never> {
    await response.body?.cancel();
    throw new RemoteError('status', url, `${method} ${url} answered ${response.status}`, response.status);
  }

  return {
    isAllowed,
    getJson<T>(url: string, options: RemoteCallOptions = {}): Promise<T> {
      return exchange('GET', url, undefined, options.signal, async (response) => {
        if (response.status !== 200) return refuseStatus(response, url, 'GET');
        const json = await readJson<T>(response, url);
        if (json === undefined) throw new RemoteError('not-json', url, `${url} did not answer with JSON`);
        return json;
      });
    },
    sendJson<T>(method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, options: RemoteCallOptions = {}): Promise<T | undefined> {
      return exchange(method, url, body, options.signal, async (response) => {
        if (response.status < 200 || response.status > 299) return refuseStatus(response, url, method);
        return readJson<T>(response, url);
      });
    },
  };
}
