import { CloudEvent, HTTP } from 'cloudevents';
import { DeliveryError, RemoteError, type RegistryServices, type RemoteClient } from '../../src/plugin-api.js';
import type { SinkOptions } from './options.js';

/** Intermediaries must forward events up to 64 KB (CloudEvents 1.0.2, size limits): a larger one is refused before it is sent. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** An OAuth2 token is fetched again this long before it expires. */
const TOKEN_MARGIN_MS = 30_000;

/** Statuses the CloudEvents webhook spec and the design name as final: retrying cannot help. */
const REFUSALS: Readonly<Record<number, string>> = {
  400: 'the sink cannot read the event',
  401: 'the sink does not accept the credentials',
  403: 'the sink does not accept the credentials',
  404: 'the sink URL does not exist',
  410: 'the sink is retired (410 Gone)',
  413: 'the event is too large for the sink',
  415: 'the sink does not take this content mode',
};

/**
 * Percent-encodes a binary-mode header value (HTTP protocol binding 3.1.3.2): space, `"`, `%` and
 * everything outside U+0021–U+007E, as UTF-8 with uppercase hex. The SDK sends values as they are.
 */
export function encodeHeaderValue(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && char !== '"' && char !== '%') out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The reverse, for receivers (and the tests): rejects invalid UTF-8. */
export function decodeHeaderValue(value: string): string {
  const bytes = Buffer.from(value.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The HTTP message of an event in a content mode, encoded by the CloudEvents SDK (which validates it first). */
export function encodeEvent(event: Record<string, unknown>, contentMode: 'structured' | 'binary'): { headers: Record<string, string>; body: string } {
  const cloudEvent = new CloudEvent(event);
  if (contentMode === 'structured') {
    const message = HTTP.structured(cloudEvent);
    return { headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' }, body: String(message.body) };
  }
  const message = HTTP.binary(cloudEvent);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    headers[lower] = lower.startsWith('ce-') ? encodeHeaderValue(String(value)) : String(value);
  }
  return { headers, body: String(message.body) };
}

/** A sink as the delivery handler uses it: its client (its hosts only), its address and how it signs in. */
export interface Sink {
  options: SinkOptions;
  /** The host: the outbox target of its deliveries. */
  target: string;
  /** POSTs one event; throws a `DeliveryError` (permanent or not) when the sink did not take it. */
  send(event: Record<string, unknown>, signal: AbortSignal): Promise<void>;
}

/** Makes a sink: a remote client allowed its own host (and its token endpoint's), nothing else. */
export function makeSink(options: SinkOptions, services: RegistryServices): Sink {
  const url = options.mode === 'notificaties' ? `${options.url.replace(/\/+$/, '')}/cloudevents` : options.url;
  const target = new URL(url).host;
  const auth = options.auth;
  const oauth2 = auth && 'oauth2' in auth ? auth.oauth2 : undefined;
  const zgw = auth && 'clientId' in auth ? auth : undefined;
  const hosts = [target, ...(oauth2 ? [new URL(oauth2.tokenUrl).host] : [])];
  const client: RemoteClient = services.remoteClient({
    allowedHosts: hosts,
    timeoutMs: options.timeoutMs,
    credentials: zgw ? { [target]: zgw } : undefined,
  });
  const contentMode = options.contentMode ?? 'structured';
  let token: { value: Promise<string>; until: number } | undefined;

  async function fetchToken(signal: AbortSignal): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: oauth2!.clientId, client_secret: oauth2!.secret, ...(oauth2!.scope ? { scope: oauth2!.scope } : {}) });
    const answer = await client.send('POST', oauth2!.tokenUrl, { content: form.toString(), type: 'application/x-www-form-urlencoded' }, { signal, authorization: false });
    const body = JSON.parse(answer.text) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new Error(`the token endpoint ${oauth2!.tokenUrl} answered without an access_token`);
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 300_000;
    token!.until = Date.now() + Math.max(0, lifetime - TOKEN_MARGIN_MS);
    return body.access_token;
  }

  /** The OAuth2 token, fetched once for concurrent deliveries and reused until near its expiry. */
  function bearer(signal: AbortSignal): Promise<string> {
    if (!token || Date.now() >= token.until) {
      const fresh: { value: Promise<string>; until: number } = { value: Promise.resolve(''), until: Infinity };
      token = fresh;
      fresh.value = fetchToken(signal);
      fresh.value.catch(() => token === fresh && (token = undefined));
    }
    return token.value;
  }

  async function post(body: string, headers: Record<string, string>, signal: AbortSignal): Promise<void> {
    const { 'content-type': type, ...rest } = headers;
    const authorization = auth && 'bearer' in auth ? `Bearer ${auth.bearer}` : oauth2 ? `Bearer ${await bearer(signal)}` : undefined;
    await client.send('POST', url, { content: body, type }, { signal, headers: rest, authorization });
  }

  return {
    options,
    target,
    async send(event, signal) {
      let message: { headers: Record<string, string>; body: string };
      try {
        message = encodeEvent(event, contentMode);
      } catch (error) {
        throw new DeliveryError(`sink "${options.id}": the event is not a valid CloudEvent: ${(error as Error).message}`, { permanent: true, cause: error });
      }
      const size = Buffer.byteLength(message.body) + Object.values(message.headers).reduce((n, v) => n + v.length, 0);
      if (size > MAX_EVENT_BYTES) throw new DeliveryError(`sink "${options.id}": the event is ${size} bytes, more than the ${MAX_EVENT_BYTES} CloudEvents intermediaries must forward`, { permanent: true });
      try {
        try {
          await post(message.body, message.headers, signal);
        } catch (error) {
          // A refused OAuth2 token may have been revoked: one fresh token, then the answer stands.
          if (!(oauth2 && error instanceof RemoteError && (error.status === 401 || error.status === 403))) throw error;
          token = undefined;
          await post(message.body, message.headers, signal);
        }
      } catch (error) {
        throw failure(options.id, error);
      }
    },
  };
}

/**
 * What a failed call means: a final refusal (the statuses of `REFUSALS`, any other 4xx but 408 and 429,
 * and a redirect, which is never followed) fails the delivery at once; 408, 429, 5xx, timeouts and
 * network errors are retried with the outbox's backoff, not before a 429's or 503's `Retry-After`.
 */
export function failure(sinkId: string, error: unknown): DeliveryError {
  if (!(error instanceof RemoteError)) return new DeliveryError(`sink "${sinkId}": ${(error as Error).message}`, { cause: error });
  const status = error.status ?? 0;
  const redirect = error.reason === 'status' && status >= 300 && status < 400;
  const refused = error.reason === 'status' && status >= 400 && status < 500 && status !== 408 && status !== 429;
  const permanent = redirect || refused || error.reason === 'not-allowed';
  const why = redirect ? 'redirects are not followed' : REFUSALS[status];
  const message = `sink "${sinkId}" answered ${error.reason === 'status' ? status : error.reason}${why ? ` (${why})` : ''}${permanent ? ': not retried' : ''}: ${error.message}`;
  return new DeliveryError(message, { permanent, retryAfterMs: error.retryAfterMs, cause: error });
}
