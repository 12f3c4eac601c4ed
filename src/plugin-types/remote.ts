/** Fetching from and sending to other APIs: the SSRF-guarded remote client. */

/** Per call: a signal that aborts it early (an outbox delivery's timeout or shutdown). */
export interface RemoteCallOptions {
  signal?: AbortSignal;
  /**
   * The `Authorization` header to send instead of the token of the host's `credentials`: a
   * client's own header, forwarded so the remote API decides what that client may read; `false`
   * sends none. Only ever sent to an allowed host.
   */
  authorization?: string | false;
}

/** A body of any media type, sent as it is. */
export interface RemoteBody {
  content: string | Uint8Array;
  /** Its `Content-Type`. */
  type: string;
}

/** For `send`: headers to add to the call (they may not replace `Content-Type`, which is the body's). */
export interface RemoteSendOptions extends RemoteCallOptions {
  headers?: Record<string, string>;
}

/** A 2xx answer to `send`: its status and body (read up to the client's `maxBytes`). */
export interface RemoteAnswer {
  status: number;
  text: string;
}

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
  /** One deadline per request over the whole exchange (connecting, headers, body), default 5000 ms. */
  timeoutMs?: number;
  /** Largest response body accepted, default 1 MiB. */
  maxBytes?: number;
  /** Credentials per host (`host` or `host:port`). */
  credentials?: Record<string, RemoteCredentials>;
  /** Called after each exchange with an allowed host (metrics): its host, outcome and duration. */
  onExchange?: (exchange: RemoteExchange) => void;
}

/** One finished exchange: the host is always an allowed one, so its values are bounded. */
export interface RemoteExchange {
  host: string;
  outcome: 'ok' | RemoteFailure;
  seconds: number;
}

/**
 * Why fetching a remote resource failed: `not-allowed` (host not in the allow-list), `timeout`,
 * `network`, `too-large`, `status` (not 200), `not-json`, `invalid-resource` (not the expected shape).
 */
export type RemoteFailure = 'not-allowed' | 'timeout' | 'network' | 'too-large' | 'status' | 'not-json' | 'invalid-resource';

export interface RemoteClient {
  /** GET a JSON document; throws `RemoteError` unless the answer is 200 with a JSON body. */
  getJson<T = unknown>(url: string, options?: RemoteCallOptions): Promise<T>;
  /**
   * Send a JSON body (POST, PUT) or none (DELETE), under the same rules as `getJson`; resolves with
   * the JSON answer, undefined when it is empty. Throws `RemoteError` unless the answer is 2xx.
   */
  sendJson<T = unknown>(method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, options?: RemoteCallOptions): Promise<T | undefined>;
  /**
   * Send a body of another media type (CloudEvents, a form) with extra headers, under the same rules:
   * no redirect followed, a non-2xx answer throws `RemoteError` (with `retryAfterMs` from the
   * `Retry-After` of a 429 or 503).
   */
  send(method: 'POST' | 'PUT', url: string, body: RemoteBody, options?: RemoteSendOptions): Promise<RemoteAnswer>;
  isAllowed(url: string): boolean;
}
