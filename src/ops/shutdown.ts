import { createServer, type RequestListener, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const IDLE_GRACE_MS = 500;

/** An HTTP server that can stop without losing a request: see `drain`. */
export interface DrainableServer {
  readonly server: Server;
  /** Requests received and not yet answered. */
  inFlight(): number;
  /**
   * Stops accepting connections at once, answers every request already received (each with
   * `Connection: close`), closes keep-alive connections once idle, and after `timeoutMs` closes
   * whatever is left. Resolves when no connection is open.
   */
  drain(timeoutMs: number): Promise<void>;
}

/** `server` (an HTTPS one) gets the app; default a plain HTTP server. */
export function drainableServer(app: RequestListener, server: Server = createServer()): DrainableServer {
  let inFlight = 0;
  let draining = false;
  let onQuiet: (() => void) | undefined;
  // Registered before the app, so the header is set before any handler can send its response.
  server.on('request', (_req, res) => {
    inFlight++;
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) onQuiet?.();
    });
  });
  server.on('request', app);

  const quiet = (deadline: number) =>
    new Promise<boolean>((resolve) => {
      if (inFlight === 0) return resolve(true);
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      onQuiet = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });

  return {
    server,
    inFlight: () => inFlight,
    async drain(timeoutMs) {
      draining = true;
      const deadline = Date.now() + timeoutMs;
      // net's close, not http's: http.Server#close also drops idle keep-alive connections at once,
      // resetting requests a client already sent on them that this process has not read yet.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      for (;;) {
        if (!(await quiet(deadline))) break;
        // A client may be sending on a connection that looks idle here: a short grace lets such
        // requests arrive (and be answered with `Connection: close`) before idle connections close.
        await sleep(Math.min(IDLE_GRACE_MS, Math.max(0, deadline - Date.now())));
        if (inFlight === 0) {
          server.closeIdleConnections();
          break;
        }
      }
      const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
      await closed;
      clearTimeout(timer);
    },
  };
}

/** Listens on `port` (0: any free one); rejects when it cannot (port taken, no permission). */
export function startListening(server: Server, port: number, host = '0.0.0.0'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
