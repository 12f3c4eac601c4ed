import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { demoZaaktype } from '../src/demo.js';
import { openStorage } from '../src/index.js';
import { BACKENDS, POSTGRES_URL } from './helpers/backends.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

const CONCURRENT = 200;
const ZAAK = { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01' };

interface Answer {
  status: number;
  body: string;
  /** The server said it closes the connection after this response. */
  closing: boolean;
}

/** One request on the keep-alive agent; resolves with the complete response, rejects on a reset or a cut body. */
function call(agent: Agent, url: string, method: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(url, { agent, method, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.complete ? resolve({ status: res.statusCode!, body: text, closing: res.headers.connection === 'close' }) : reject(new Error('incomplete response'))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** One CPU-bound process per core until `stop`: the machine is busy, as a loaded production host is. */
function busyMachine(): { stop(): void } {
  const burners: ChildProcess[] = Array.from({ length: availableParallelism() }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return { stop: () => burners.forEach((burner) => burner.kill('SIGKILL')) };
}

/** How a request on a fresh connection ended: answered, or the error's code (ECONNREFUSED: refused before connecting). */
function freshCall(url: string, method: string, body?: unknown): Promise<{ status: number; body: string; closing: boolean; retryAfter?: string } | { error: string }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(url, { agent: false, method, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(res.complete ? { status: res.statusCode!, body: text, closing: res.headers.connection === 'close', retryAfter: res.headers['retry-after'] } : { error: 'incomplete response' }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(payload);
  });
}

/** The database each backend's CLI process is given, and how to open it afterwards. */
async function database(backend: string): Promise<{ arg: string; drop(): Promise<void> }> {
  if (backend === 'PGlite') {
    const dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-shutdown-'));
    return { arg: dir, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
  const name = `zaakregister_shutdown_${randomBytes(6).toString('hex')}`;
  await admin.raw('create database ??', [name]);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    arg: url.toString(),
    async drop() {
      await admin.raw('drop database if exists ?? with (force)', [name]);
      await admin.destroy();
    },
  };
}

for (const backend of BACKENDS) {
  describe(`zero-loss shutdown (${backend.name})`, () => {
    it(`answers all ${CONCURRENT} requests in flight on keep-alive connections when SIGTERM arrives, and stores every acknowledged write`, async function () {
      // A guard against a hang only: on a busy machine 200 clients of a process on PGlite take minutes.
      this.timeout(600_000);
      const db = await database(backend.name);
      const server = spawnTs('src/cli.ts', ['serve', '--database', db.arg, '--development', '--port', '0']);
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT });
      try {
        const [, base] = await waitForOutput(server, /serving (http:\/\/[^\s"]+)/);
        const zaaktype = demoZaaktype('meldingOpenbareRuimte', base);
        // Every connection open and idle first: the requests below go out on established keep-alive sockets.
        const warm = await Promise.all(Array.from({ length: CONCURRENT }, () => call(agent, `${base}/zaken`, 'GET')));
        assert.ok(warm.every((a) => a.status === 200));
        assert.equal(Object.values(agent.freeSockets).flat().length, CONCURRENT);

        // Each client sends its next request the moment the previous one is answered (a load balancer
        // under load), until the server says it closes the connection; SIGTERM comes in the middle.
        const answers: Answer[] = [];
        const methods: string[] = [];
        let answered = 0;
        let signalled!: () => void;
        const halfway = new Promise<void>((resolve) => (signalled = resolve));
        const client = async (n: number) => {
          for (let i = 0; ; i++) {
            const write = (n + i) % 2 === 1;
            const answer = await call(agent, `${base}/zaken`, write ? 'POST' : 'GET', write ? { ...ZAAK, zaaktype, omschrijving: `shutdown ${n}.${i}` } : undefined);
            answers.push(answer);
            methods.push(write ? 'POST' : 'GET');
            if (++answered === CONCURRENT * 2) signalled();
            if (answer.closing) return;
          }
        };
        const settled = Promise.allSettled(Array.from({ length: CONCURRENT }, (_, n) => client(n)));
        await halfway;
        server.kill('SIGTERM');
        const results = await settled;
        const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
        assert.deepEqual(failures, [], `${failures.length} requests lost`);
        assert.deepEqual([...new Set(answers.map((a, i) => `${methods[i]} ${a.status}`))].sort(), ['GET 200', 'POST 201']);
        assert.equal(answers.filter((a) => a.closing).length, CONCURRENT);
        const created = answers.filter((_, i) => methods[i] === 'POST').map((a) => (JSON.parse(a.body) as { uuid: string }).uuid);
        assert.equal(await exitCode(server), 0, server.output());

        const storage = await openStorage(db.arg);
        try {
          const stored = (await storage.knex('zaak').whereIn('uuid', created).pluck('uuid')) as string[];
          assert.equal(stored.length, created.length);
        } finally {
          await storage.close();
        }
      } finally {
        agent.destroy();
        if (server.exitCode === null) server.kill('SIGKILL');
        await db.drop();
      }
    });
  });

  describe(`zero-loss shutdown on fresh connections (${backend.name})`, () => {
    it(`answers or refuses before connecting each of ${CONCURRENT} requests on new connections when SIGTERM comes 40 ms after them, on a busy machine: no reset`, async function () {
      this.timeout(600_000);
      const db = await database(backend.name);
      // The process takes one waiting connection per turn of its event loop, and on this starved
      // machine a turn takes long: a drain timeout that covers answering them all.
      const config = path.join(await mkdtemp(path.join(tmpdir(), 'zaakregister-drain-')), 'config.json');
      await writeFile(config, JSON.stringify({ drainTimeoutMs: 120_000 }));
      const server = spawnTs('src/cli.ts', ['serve', '--config', config, '--database', db.arg, '--development', '--port', '0']);
      let busy: { stop(): void } | undefined;
      try {
        const [, served] = await waitForOutput(server, /serving (http:\/\/[^\s"]+)/);
        const zaaktype = demoZaaktype('meldingOpenbareRuimte', served);
        // The address, not `localhost`: connections are opened at once, not after a lookup each.
        const base = served.replace('//localhost:', '//127.0.0.1:');
        busy = busyMachine();
        // Three reads to a write, each on a connection of its own.
        const outcomes = Promise.all(
          Array.from({ length: CONCURRENT }, (_, n) =>
            n % 4 === 3 ? freshCall(`${base}/zaken`, 'POST', { ...ZAAK, zaaktype, omschrijving: `fresh ${n}` }) : freshCall(`${base}/zaken`, 'GET'),
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 40));
        server.kill('SIGTERM');
        const results = await outcomes;
        busy.stop();
        const errors = results.flatMap((r) => ('error' in r ? [r.error] : []));
        const lost = errors.filter((code) => code !== 'ECONNREFUSED');
        assert.equal(lost.length, 0, `${lost.length} of ${CONCURRENT} lost after connecting: ${[...new Set(lost)].join(', ')}`);
        const answers = results.flatMap((r) => ('status' in r ? [r] : []));
        assert.ok(answers.length > 0, 'requests reached the server before SIGTERM');
        for (const answer of answers) {
          if (answer.status === 503) assert.ok(answer.retryAfter && answer.closing, 'a 503 says when to retry and closes');
          else assert.ok(answer.status === 200 || answer.status === 201, `${answer.status} ${answer.body}`);
        }
        assert.equal(await exitCode(server), 0, server.output());
        const created = answers.filter((a) => a.status === 201).map((a) => (JSON.parse(a.body) as { uuid: string }).uuid);
        const storage = await openStorage(db.arg);
        try {
          const stored = (await storage.knex('zaak').whereIn('uuid', created).pluck('uuid')) as string[];
          assert.equal(stored.length, created.length);
        } finally {
          await storage.close();
        }
      } finally {
        busy?.stop();
        if (server.exitCode === null) server.kill('SIGKILL');
        await db.drop();
      }
    });
  });
}
