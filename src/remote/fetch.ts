import { Agent, request, type Dispatcher } from 'undici';
import { signZgwJwt } from '../auth/sign.js';
import { currentRequest, REQUEST_ID_HEADER } from '../ops/request-scope.js';
import { startSpan } from '../ops/tracing.js';
import type { RemoteAnswer, RemoteBody, RemoteCallOptions, RemoteClient, RemoteCredentials, RemoteExchange, RemoteFailure, RemoteOptions, RemoteSendOptions } from '../plugin-types.js';
import { refusalSummary } from './problem-summary.js';
export type { RemoteAnswer, RemoteBody, RemoteCallOptions, RemoteClient, RemoteCredentials, RemoteExchange, RemoteFailure, RemoteOptions, RemoteSendOptions };

export class RemoteError extends Error {
  constructor(
    readonly reason: RemoteFailure,
    readonly url: string,
    message: string,
    readonly status?: number,
    /** How long the remote asked to wait before trying again (`Retry-After` of a 429 or 503). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const TOKEN_REUSE_MS = 60_000;

/**
 * One connection pool (keep-alive) for every remote client of the process. undici's `request`, not
 * `fetch`: the WHATWG Request, Response, stream and AbortSignal objects around each fetch were about
 * half of an outbox delivery's HTTP cost. Made at first use, so importing the package opens nothing.
 */
let pool: Agent | undefined;
const connections = () => (pool ??= new Agent());

type RemoteResponse = Dispatcher.ResponseData;

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

  async function readCapped(response: RemoteResponse, url: string): Promise<string> {
    const declared = Number(response.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      response.body.destroy();
      throw new RemoteError('too-large', url, `response of ${declared} bytes exceeds ${maxBytes}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new RemoteError('too-large', url, `response exceeds ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  /**
   * One exchange with an allowed host, with its credentials, under one deadline: connecting, the
   * headers and `read`ing the body all end by `timeoutMs` (a host that trickles its body is as late as
   * one that never answers). A redirect is not followed: it is an answer of its own (a status).
   */
  async function exchange<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body: RemoteBody | undefined, call: RemoteSendOptions, read: (response: RemoteResponse) => Promise<T>): Promise<T> {
    const parsed = parse(url);
    if (!parsed || !isAllowed(url)) throw new RemoteError('not-allowed', url, `host of ${url} is not in the allowed hosts`);
    const headers: Record<string, string> = { accept: 'application/json', 'accept-crs': 'EPSG:4326', 'user-agent': 'zaakregister' };
    if (call.authorization === undefined) Object.assign(headers, await authorization(parsed));
    else if (call.authorization) headers.authorization = call.authorization;
    const callerSignal = call.signal;
    if (call.headers) Object.assign(headers, call.headers);
    if (body !== undefined) headers['content-type'] = body.type;
    // The remote's logs can then be matched with the request that caused the call.
    const requestId = currentRequest()?.id;
    if (requestId) headers[REQUEST_ID_HEADER] = requestId;
    const deadline = new AbortController();
    // A timer of our own, held until the exchange ends: an AbortSignal.timeout() that nothing refers to
    // any more (once the headers are in) may be garbage-collected before it fires.
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    // The caller's signal aborts the deadline's controller: cheaper than joining the two with AbortSignal.any().
    const callerAborted = () => deadline.abort(callerSignal!.reason);
    if (callerSignal?.aborted) callerAborted();
    else callerSignal?.addEventListener('abort', callerAborted, { once: true });
    const { signal } = deadline;
    const started = performance.now();
    const span = startSpan(`${method} ${parsed.host}`, { 'http.request.method': method, 'server.address': parsed.host });
    let outcome: RemoteExchange['outcome'] = 'ok';
    try {
      const response = await request(parsed, {
        method,
        headers,
        body: body?.content,
        signal,
        dispatcher: connections(),
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
      callerSignal?.removeEventListener('abort', callerAborted);
      span.span.setAttribute('zaakregister.remote.outcome', outcome);
      span.end(outcome === 'ok' ? undefined : outcome);
      options.onExchange?.({ host: parsed.host, outcome, seconds: (performance.now() - started) / 1000 });
    }
  }

  async function readJson<T>(response: RemoteResponse, url: string): Promise<T | undefined> {
    const text = await readCapped(response, url);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RemoteError('not-json', url, `${url} did not answer with JSON`);
    }
  }

  /** The body is read (up to `maxBytes`) for what the host said, so the connection can be used again too. */
  async function refuseStatus(response: RemoteResponse, url: string, method: string): Promise<never> {
    const said = refusalSummary(await readCapped(response, url).catch(() => ''));
    const wait = response.statusCode === 429 || response.statusCode === 503 ? retryAfterMs(response.headers['retry-after']) : undefined;
    throw new RemoteError('status', url, `${method} ${url} answered ${response.statusCode}${said ? `: ${said}` : ''}`, response.statusCode, wait);
  }

  const json = (body: unknown): RemoteBody | undefined => (body === undefined ? undefined : { content: JSON.stringify(body), type: 'application/json' });

  return {
    isAllowed,
    getJson<T>(url: string, options: RemoteCallOptions = {}): Promise<T> {
      return exchange('GET', url, undefined, options, async (response) => {
        if (response.statusCode !== 200) return refuseStatus(response, url, 'GET');
        const json = await readJson<T>(response, url);
        if (json === undefined) throw new RemoteError('not-json', url, `${url} did not answer with JSON`);
        return json;
      });
    },
    sendJson<T>(method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, options: RemoteCallOptions = {}): Promise<T | undefined> {
      return exchange(method, url, json(body), options, async (response) => {
        if (response.statusCode < 200 || response.statusCode > 299) return refuseStatus(response, url, method);
        return readJson<T>(response, url);
      });
    },
    send(method: 'POST' | 'PUT', url: string, body: RemoteBody, options: RemoteSendOptions = {}): Promise<RemoteAnswer> {
      return exchange(method, url, body, options, async (response) => {
        if (response.statusCode < 200 || response.statusCode > 299) return refuseStatus(response, url, method);
        return { status: response.statusCode, text: await readCapped(response, url) };
      });
    },
  };
}
