import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Server as TlsServer } from 'node:tls';
import { ProblemError } from '../problem.js';
import { waitingConnections } from './accept-queue.js';

/**
 * How long a connection stays open after a response that did not say `Connection: close`: the client
 * may already be sending its next request on it. Counted per connection, from that response's end or
 * from the start of the drain, whichever is later.
 */
const IDLE_GRACE_MS = 1_000;
const SWEEP_MS = 50;
/** What a client told to come back later waits, in seconds (another instance answers it meanwhile). */
const RETRY_AFTER_S = 1;
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
   * Answers every request already received, each with `Connection: close` unless its headers were
   * already sent. New connections are accepted and served likewise for `graceMs` (a load balancer
   * may take that long to see readiness fail). After it the listener closes, but only once no
   * connection is waiting in the kernel's accept queue: closing would reset those, whose clients
   * have already sent their requests. Requests on connections taken after the grace are answered
   * 503 with `Retry-After` at once. A keep-alive connection is closed once it has been idle for a
   * short grace (its client may not have learnt that the server closes); after `timeoutMs` whatever
   * is left is closed. Resolves when no connection is open.
   */
  drain(timeoutMs: number, graceMs?: number): Promise<void>;
}

interface Connection {
  /** Requests received on it and not yet answered. */
  active: number;
  /** When its last response ended (or it was opened). */
  idleSince: number;
  /** `bytesRead` then: more since means a request is arriving, not complete enough to count yet. */
  bytesAtIdle: number;
  /** Taken after the drain's grace: its requests are answered 503. */
  late: boolean;
}

/** `server` (an HTTPS one) gets the app; default a plain HTTP server. */
export function drainableServer(app: RequestListener, server: Server = createServer()): DrainableServer {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Above the idle time, as Node's defaults are (60 s over 5 s).
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  const connections = new Map<Socket, Connection>();
  const unanswered = new Set<ServerResponse>();
  let draining = false;
  let graceEnd = Infinity;
  let taken = 0;
  const tls = server instanceof TlsServer;
  server.on('connection', () => void taken++);
  // 'secureConnection' for HTTPS: the socket its requests arrive on is the TLS one.
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now(), bytesAtIdle: socket.bytesRead, late: Date.now() >= graceEnd });
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
  server.on('request', (req, res) => {
    const connection = connections.get(req.socket);
    if (connection) connection.active++;
    unanswered.add(res);
    // Before the app, so the header is set before any handler can send its response.
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      unanswered.delete(res);
      if (connection) {
        connection.active--;
        connection.idleSince = Date.now();
        connection.bytesAtIdle = req.socket.bytesRead;
      }
    });
    if (connection?.late) unavailable(res);
    else app(req, res);
  });

  return {
    server,
    async drain(timeoutMs, graceMs = 0) {
      draining = true;
      const start = Date.now();
      const deadline = start + timeoutMs;
      graceEnd = Math.min(deadline, start + graceMs);
      // Requests already being answered learn it too, as long as their headers are not out yet.
      for (const res of unanswered) if (!res.headersSent) res.setHeader('connection', 'close');
      let closed = false;
      let allClosed: Promise<void> | undefined;
      // net's close, not http's: http.Server#close also drops idle keep-alive connections at once,
      // resetting requests a client already sent on them that this process has not read yet.
      const stopListening = () =>
        (allClosed = new Promise<void>((resolve) =>
          NetServer.prototype.close.call(server, () => {
            closed = true;
            resolve();
          }),
        ));
      const idle = (socket: Socket, connection: Connection) => connection.active === 0 && socket.bytesRead === connection.bytesAtIdle;
      // A timer runs before the loop polls for I/O: after a busy stretch, connections and requests that
      // arrived during it are still untaken, unread. Past the next poll they are taken (a connection
      // per turn of the loop) and read.
      const pastPoll = () => new Promise((resolve) => setImmediate(resolve));
      while (!closed && Date.now() < deadline) {
        const now = Date.now();
        const overdue = [...connections].filter(([socket, connection]) => idle(socket, connection) && now - Math.max(connection.idleSince, start) >= IDLE_GRACE_MS);
        if (overdue.length) {
          await pastPoll();
          for (const [socket, connection] of overdue) if (idle(socket, connection)) socket.destroy();
        }
        if (!allClosed && Date.now() >= graceEnd) {
          // Closed only when no connection waits to be taken: on Linux read at the moment of closing;
          // elsewhere a whole turn of the loop that took no connection had none waiting.
          const waiting = waitingConnections(server);
          if (waiting === 0) stopListening();
          else if (waiting === undefined) {
            await pastPoll();
            const before = taken;
            await pastPoll();
            if (taken === before) stopListening();
          }
        }
        const pause = sleep(Math.min(SWEEP_MS, Math.max(0, deadline - Date.now())));
        await (allClosed ? Promise.race([allClosed, pause]) : pause);
      }
      allClosed ??= stopListening();
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

/** A request on a connection taken after the drain's grace: come back in a moment (at another instance). */
function unavailable(res: ServerResponse): void {
  const problem = new ProblemError('unavailable', { detail: 'Deze instantie stopt; probeer het opnieuw.' });
  res.writeHead(problem.status, { 'content-type': 'application/problem+json', 'retry-after': String(RETRY_AFTER_S), connection: 'close' });
  res.end(JSON.stringify(problem.toBody()));
}
