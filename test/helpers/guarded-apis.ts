import { randomUUID } from 'node:crypto';
import { jwtVerify, decodeJwt } from 'jose';
import { answer, listenWithModes, type Mode, type RecordedRequest } from './zgw-servers.js';

/** The Documenten, Besluiten and Catalogi APIs (1.x), by where they keep the resource they stand in for. */
const APIS = {
  documenten: 'enkelvoudiginformatieobjecten',
  besluiten: 'besluiten',
  catalogi: 'catalogussen',
} as const;
export type GuardedApiKind = keyof typeof APIS;

export interface GuardedApiServer {
  /** Base URL, `http://127.0.0.1:<port>/<kind>/api/v1`. */
  url: string;
  host: string;
  /** Stores a resource and returns its URL; GET on it answers it to a client that may read it. */
  resource(fields?: Record<string, unknown>): string;
  /** Every request received, with its `Authorization` header. */
  requests: RecordedRequest[];
  /** The most requests it was answering at one time (set it to 0 to measure anew). */
  mostInFlight: number;
  /** How long it holds each answer, in ms (default 0): makes requests overlap, to see how many run at once. */
  holdMs: number;
  readonly mode: Mode;
  setMode(mode: Mode): Promise<void>;
  close(): Promise<void>;
}

/**
 * A Documenten, Besluiten or Catalogi API on 127.0.0.1 that checks the bearer token of every
 * request, as the real ones do: a ZGW JWT (HS256) signed with the secret of its `client_id` in
 * `clients`, else 401; a client not in `readers` is refused with 403.
 */
export async function startGuardedApi(kind: GuardedApiKind, clients: Record<string, string>, readers: string[]): Promise<GuardedApiServer> {
  const path = `/${kind}/api/v1`;
  const stored = new Map<string, Record<string, unknown>>();
  let inFlight = 0;

  async function clientOf(header: string | undefined): Promise<string | undefined> {
    const token = header?.match(/^Bearer (.+)$/)?.[1];
    if (!token) return undefined;
    try {
      const clientId = String(decodeJwt(token).client_id ?? '');
      const secret = clients[clientId];
      if (!secret) return undefined;
      await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'] });
      return clientId;
    } catch {
      return undefined;
    }
  }

  const requests: RecordedRequest[] = [];
  const modal = await listenWithModes(requests, async (req, res) => {
    inFlight++;
    state.mostInFlight = Math.max(state.mostInFlight, inFlight);
    try {
      if (state.holdMs) await new Promise((resolve) => setTimeout(resolve, state.holdMs));
      const clientId = await clientOf(req.headers.authorization);
      if (!clientId) return answer(res, 401, { code: 'not_authenticated', detail: 'Er is geen geldige token meegestuurd.' });
      if (!readers.includes(clientId)) return answer(res, 403, { code: 'permission_denied', detail: 'Je hebt geen toestemming om deze actie uit te voeren.' });
      const url = modal.origin + new URL(req.url ?? '', modal.origin).pathname;
      if (req.method === 'GET' && stored.has(url)) return answer(res, 200, stored.get(url));
      answer(res, 404, { code: 'not_found', detail: 'Niet gevonden.' });
    } finally {
      inFlight--;
    }
  });

  const state: GuardedApiServer = {
    url: modal.origin + path,
    host: modal.host,
    resource(fields = {}) {
      const url = `${modal.origin}${path}/${APIS[kind]}/${randomUUID()}`;
      stored.set(url, { url, ...fields });
      return url;
    },
    requests,
    mostInFlight: 0,
    holdMs: 0,
    get mode() {
      return modal.mode;
    },
    setMode: modal.setMode,
    close: modal.close,
  };
  return state;
}
