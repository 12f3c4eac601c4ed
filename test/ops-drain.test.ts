import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRegistry, type Logger } from '../src/index.js';
import { waitingConnections } from '../src/ops/accept-queue.js';
import { drainableServer, startListening, type DrainableServer } from '../src/ops/shutdown.js';
import { zaakInput } from '../src/testing/index.js';
import { TLS } from '../plugins/oauth/test-flow.js';
import { testCatalog } from './helpers/registry.js';

/** A server whose handler answers `/held` only when the test releases it; anything else at once. */
async function heldServer(): Promise<{ drainable: DrainableServer; base: string; reached: Promise<void>; release(): void }> {
  let reached!: () => void;
  let release!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const drainable = drainableServer((req, res) => {
    if (req.url !== '/held') return res.end('quick');
    reached();
    void released.then(() => res.end('held'));
  });
  await startListening(drainable.server, 0, '127.0.0.1');
  const { port } = drainable.server.address() as AddressInfo;
  return { drainable, base: `http://127.0.0.1:${port}`, reached: reachedPromise, release };
}

/** A held server and a plain TCP connection to it whose first request has been answered (keep-alive). */
async function answeredOnRawConnection(): Promise<{ drainable: DrainableServer; socket: Socket; received(): string }> {
  const { drainable, base } = await heldServer();
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  socket.write('GET /quick HTTP/1.1\r\nHost: x\r\n\r\n');
  while (!received.includes('quick')) await sleep(10);
  return { drainable, socket, received: () => received };
}

/**
 * `node -e RAW_CLIENTS <port> <n>`: n connections to 127.0.0.1:port, a GET on each; prints what each
 * received until the server closed it (JSON list), or the error of a reset.
 */
const RAW_CLIENTS = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
Promise.all(Array.from({ length: n }, () => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', (error) => resolve(error.code));
  socket.on('end', () => resolve(received));
  socket.write('GET /quick HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n');
}))).then((all) => process.stdout.write(JSON.stringify(all)));
`;

function get(agent: Agent, url: string): Promise<{ res: IncomingMessage; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      const socket = res.socket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ res, body, socket }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('keep-alive connections of the registry server', () => {
  it("stay open while idle for longer than Node's default 5 s, so a client that reuses one is not reset", async function () {
    this.timeout(20_000);
    const { drainable, base } = await heldServer();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(agent, `${base}/quick`);
      await sleep(6_000);
      const second = await get(agent, `${base}/quick`);
      assert.equal(second.socket, first.socket, 'the same connection');
      assert.equal(second.body, 'quick');
    } finally {
      agent.destroy();
      await drainable.drain(0);
    }
  });
});

describe('draining the HTTP server on shutdown', () => {
  let agent: Agent;
  beforeEach(() => (agent = new Agent({ keepAlive: true, maxSockets: 1 })));
  afterEach(() => agent.destroy());

  it('answers a request received before shutdown with Connection: close, then closes its connection', async () => {
    const { drainable, base, reached, release } = await heldServer();
    const answer = get(agent, `${base}/held`);
    await reached;
    const drained = drainable.drain(10_000);
    release();
    const { res, body } = await answer;
    assert.equal(body, 'held');
    assert.equal(res.headers.connection, 'close');
    await drained;
    assert.equal(drainable.server.listening, false);
  });

  it('still answers a request sent on a keep-alive connection whose last response came just before shutdown', async () => {
    const { drainable, base } = await heldServer();
    const first = await get(agent, `${base}/quick`);
    assert.equal(first.res.headers.connection, 'keep-alive');
    const drained = drainable.drain(10_000);
    // The client has not learnt of the shutdown: it reuses the connection a moment later.
    await sleep(100);
    const second = await get(agent, `${base}/quick`);
    assert.equal(second.socket, first.socket, 'the same connection');
    assert.equal(second.body, 'quick');
    assert.equal(second.res.headers.connection, 'close');
    await drained;
  });

  it('closes an idle keep-alive connection after the grace, and refuses new connections at once', async () => {
    const { drainable, base } = await heldServer();
    const { socket } = await get(agent, `${base}/quick`);
    const socketClosed = once(socket, 'close');
    const drained = drainable.drain(10_000);
    await assert.rejects(get(new Agent(), `${base}/quick`), { code: 'ECONNREFUSED' });
    await Promise.all([drained, socketClosed]);
  });

  it('waits for a request that is still arriving on a keep-alive connection past the grace', async () => {
    const { drainable, socket, received } = await answeredOnRawConnection();
    const drained = drainable.drain(10_000);
    // Half of the next request now, the rest after the idle grace has passed.
    socket.write('GET /quick HTTP/1.1\r\nHo');
    await sleep(1_500);
    socket.write('st: x\r\n\r\n');
    await Promise.all([drained, once(socket, 'close')]);
    assert.equal(received().match(/HTTP\/1\.1 200/g)?.length, 2, received());
    assert.match(received(), /connection: close/i);
  });

  it('answers a request that reached the machine while the process was too busy to read it, past the grace', async () => {
    const { drainable, socket, received } = await answeredOnRawConnection();
    const drained = drainable.drain(10_000);
    // After the loop's poll for I/O: the request waits unread in the socket while the process is busy
    // (a machine under load) for longer than the grace; the drain's timer is due before the next poll.
    await new Promise((resolve) => setImmediate(resolve));
    socket.write('GET /quick HTTP/1.1\r\nHost: x\r\n\r\n');
    for (const busyUntil = Date.now() + 1_500; Date.now() < busyUntil; );
    await Promise.all([drained, once(socket, 'close')]);
    assert.equal(received().match(/HTTP\/1\.1 200/g)?.length, 2, received());
    assert.match(received(), /connection: close/i);
  });

  it('serves a new connection during the grace, with Connection: close', async () => {
    const { drainable, base } = await heldServer();
    const drained = drainable.drain(10_000, 2_000);
    const { res, body } = await get(new Agent(), `${base}/quick`);
    assert.equal(body, 'quick');
    assert.equal(res.headers.connection, 'close');
    await drained;
  });

  it('after the grace, answers connections the kernel had accepted 503 with Retry-After before it closes the listener: none is reset', async () => {
    const { drainable, base } = await heldServer();
    const port = Number(new URL(base).port);
    // Another process connects five times and sends a request on each, while this one is too busy to
    // take them: they wait in the kernel's accept queue when the drain starts.
    const clients = spawn(process.execPath, ['-e', RAW_CLIENTS, String(port), '5'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    clients.stdout.on('data', (chunk: Buffer) => (output += chunk));
    for (const busyUntil = Date.now() + 30_000; waitingConnections(drainable.server) !== 5 && Date.now() < busyUntil; );
    assert.equal(waitingConnections(drainable.server), 5);
    const drained = drainable.drain(10_000);
    await once(clients, 'exit');
    const received = JSON.parse(output) as string[];
    assert.equal(received.length, 5);
    for (const text of received) {
      assert.match(text, /^HTTP\/1\.1 503 /, text);
      assert.match(text, /retry-after: 1/i);
      assert.match(text, /connection: close/i);
      assert.match(text, /"code":"unavailable"/);
    }
    await drained;
    await assert.rejects(get(new Agent(), `${base}/quick`), { code: 'ECONNREFUSED' });
  });

  it('over HTTPS, also closes a connection still in its TLS handshake when the drain timeout passes', async function () {
    this.timeout(10_000); // the handshake's own timeout is two minutes
    const drainable = drainableServer((_req, res) => res.end('quick'), createHttpsServer({ cert: TLS.serverCert, key: TLS.serverKey }));
    await startListening(drainable.server, 0, '127.0.0.1');
    const socket = connect((drainable.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => {});
    await drainable.drain(300);
    await once(socket, 'close');
  });

  it('closes what is left when the drain timeout passes', async () => {
    const { drainable, base, reached } = await heldServer();
    const answer = get(agent, `${base}/held`);
    await reached;
    await drainable.drain(200);
    await assert.rejects(answer, { code: 'ECONNRESET' });
  });
});

/**
 * A registry whose next `POST /zaken` waits in `validate` until released, sent by a client that gives
 * up once it is held; what the logger and the plugin's hooks saw.
 */
async function heldWrite(drainTimeoutMs?: number) {
  const seen = { errors: [] as string[], warnings: [] as string[], committed: false, committedAtClose: undefined as boolean | undefined };
  const logger: Logger = { debug() {}, info() {}, warn: (message) => void seen.warnings.push(message), error: (message) => void seen.errors.push(message) };
  let reached!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const registry = await createRegistry({
    storage: 'memory',
    preset: 'none',
    catalog: testCatalog(),
    authorization: 'development',
    logger,
    drainTimeoutMs,
    plugins: [
      {
        name: 'test-hold-create',
        async validate() {
          reached();
          await released;
        },
        afterCommit: () => void (seen.committed = true),
        // Plugins close after the operations, just before the database.
        close: () => void (seen.committedAtClose = seen.committed),
      },
    ],
  });
  const server = await registry.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const payload = JSON.stringify(zaakInput());
  const req = request(`http://127.0.0.1:${port}/zaken/api/v1/zaken`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } });
  req.on('error', () => {}); // the client gives up: its reset is expected
  req.end(payload);
  await held;
  req.destroy();
  await sleep(50);
  return { registry, server, release, seen };
}

describe('closing the registry', () => {
  it('lets a write whose client left finish before the database closes', async () => {
    const { registry, server, release, seen } = await heldWrite();
    const closed = registry.close();
    // The client is gone, so the server drains at once; the write, still running, holds the rest.
    while (server.listening) await sleep(10);
    await sleep(200);
    assert.equal(seen.committedAtClose, undefined, 'nothing closed yet');
    release();
    await closed;
    assert.equal(seen.committedAtClose, true, 'the write committed before the plugins and the database closed');
    assert.deepEqual(seen.errors, []);
  });

  it('closes at drainTimeoutMs all the same, and says an operation was still running', async () => {
    const { registry, release, seen } = await heldWrite(300);
    await registry.close();
    assert.equal(seen.committedAtClose, false);
    assert.ok(seen.warnings.includes('operations still running when the drain timeout passed; closing the database under them'), String(seen.warnings));
    release();
    // The write fails on the closed database and is not acknowledged: nobody waits for it.
    await sleep(100);
    assert.equal(seen.committed, false);
  });
});
