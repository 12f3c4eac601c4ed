import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server as TlsServer } from 'node:tls';

/**
 * How long a connection stays open after a response that did not say `Connection: close`: the client
 * may already be sending its next request on it. Counted per connection, from that response's end or
 * from the start of the drain, whichever is later.
 */
const IDLE_GRACE_MS = 1_000;
const SWEEP_MS = 50;
/**
 * How long an idle keep-alive connection stays open outside a drain: longer than the idle timeout of
 * the proxies and load balancers in front (often 60 s), so that the client closes first. Node's 5 s
 * closed connections that a client was just reusing (a reset request), more often on a busy machine.
 */
const KEEP_ALIVE_MS = 65_000;

/** An HTTP server that can stop without losing a request: see `drain`. */
export interface DrainableServer {
  readonly server: Server;
  /**
   * Stops accepting connections at once and answers every request already received, each with
   * `Connection: close` unless its headers were already sent. A keep-alive connection is closed once
   * it has been idle for a short grace (its client may not have learnt that the server closes); after
   * `timeoutMs` whatever is left is closed. Resolves when no connection is open.
   */
  drain(timeoutMs: number): Promise<void>;
}

interface Connection {
  /** Requests received on it and not yet answered. */
  active: number;
  /** When its last response ended (or it was opened). */
  idleSince: number;
  /** `bytesRead` then: more since means a request is arriving, not complete enough to count yet. */
  bytesAtIdle: number;
}

/** `server` (an HTTPS one) gets the app; default a plain HTTP server. */
export function drainableServer(app: RequestListener, server: Server = createServer()): DrainableServer {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Above the idle time, as Node's defaults are (60 s over 5 s).
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  const connections = new Map<Socket, Connection>();
  const unanswered = new Set<ServerResponse>();
  let draining = false;
  const tls = server instanceof TlsServer;
  // 'secureConnection' for HTTPS: the socket its requests arrive on is the TLS one.
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now(), bytesAtIdle: socket.bytesRead });
    socket.once('close', () => connections.delete(socket));
  });
  // HTTPS: every TCP connection, for those still in their handshake (in neither list), closed at the deadline.
  const tcp = new Set<Socket>();
  if (tls) {
    server.on('connection', (socket: Socket) => {
      tcp.add(socket);
      socket.once('close', () => tcp.delete(socket));
    });
  }
  // Registered before the app, so the header is set before any handler can send its response.
  server.on('request', (req, res) => {
    const connection = connections.get(req.socket);
    if (connection) connection.active++;
    unanswered.add(res);
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      unanswered.delete(res);
      if (connection) {
        connection.active--;
        connection.idleSince = Date.now();
        connection.bytesAtIdle = req.socket.bytesRead;
      }
    });
  });
  server.on('request', app);

  return {
    server,
    async drain(timeoutMs) {
      draining = true;
      const start = Date.now();
      const deadline = start + timeoutMs;
      // Requests already being answered learn it too, as long as their headers are not out yet.
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      // net's close, not http's: http.Server#close also drops idle keep-alive connections at once,
      // resetting requests a client already sent on them that this process has not read yet.
      let closed = false;
      const allClosed = new Promise<void>((resolve) =>
        NetServer.prototype.close.call(server, () => {
          closed = true;
          resolve();
        }),
      );
      const idle = (socket: Socket, connection: Connection) => connection.active === 0 && socket.bytesRead === connection.bytesAtIdle;
      while (!closed && Date.now() < deadline) {
        const now = Date.now();
        const overdue = [...connections].filter(([socket, connection]) => idle(socket, connection) && now - Math.max(connection.idleSince, start) >= IDLE_GRACE_MS);
        if (overdue.length) {
          // A timer runs before the loop polls for I/O: after a busy stretch, requests that arrived
          // during it are still unread. Past the next poll they are read, and their connections busy.
          await new Promise((resolve) => setImmediate(resolve));
          for (const [socket, connection] of overdue) if (idle(socket, connection)) socket.destroy();
        }
        await Promise.race([allClosed, sleep(Math.min(SWEEP_MS, Math.max(0, deadline - Date.now())))]);
      }
      server.closeAllConnections();
      for (const socket of tcp) socket.destroy();
      await allClosed;
    },
  };
}

/**
 * The API operations still running. A request whose client went away has no one left to answer, but
 * it may still be writing: on shutdown the registry lets it finish before it closes the database.
 */
export class RunningOperations {
  private count = 0;
  private onIdle: (() => void) | undefined;

  enter(): void {
    this.count++;
  }

  leave(): void {
    if (--this.count === 0) this.onIdle?.();
  }

  /** Resolves when none is running (true), or at `deadline` (false). */
  settled(deadline: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
      this.onIdle = () => {
        clearTimeout(timer);
        this.onIdle = undefined;
        resolve(true);
      };
    });
  }
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
