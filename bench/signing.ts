/**
 * What the signing plugin costs: responses per second for `GET /zaken/{uuid}` without and with
 * response signing, `POST /zaken` without and with request verification, and the CPU time of one
 * PS256 signature and of one request verification (RSA-2048).
 *
 *   npx tsx bench/signing.ts [seconds per run, default 5]
 *
 * The registry runs on in-memory PGlite in this process and autocannon drives it from here, so both
 * share the 2 cores: the ratios are what to compare, not the absolute figures. Not part of `npm test`.
 */
import { constants, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import autocannon from 'autocannon';
import { consoleLogger, createRegistry, pgliteStorage, signing, staticCatalog, type SigningOptions } from '../src/index.js';
import { signRequest, signingKey } from '../plugins/signing/client.js';
import { KeyRing, requestTarget, signMessage, verifyMessage, verificationKeys } from '../plugins/signing/jws.js';

const SECONDS = Number(process.argv[2] ?? 5);
const fixture = (name: string) => readFileSync(new URL(`../plugins/signing/fixtures/${name}`, import.meta.url), 'utf8');
const REGISTRY = { privateKey: fixture('registry.key.pem'), certificate: fixture('registry.cert.pem') };
const CLIENT = { privateKey: fixture('client.key.pem'), certificate: fixture('client.cert.pem') };
const ZAAKTYPE = 'http://catalogus.test/api/v1/zaaktypen/11111111-1111-4111-8111-111111111111';
const zaak = { zaaktype: ZAAKTYPE, bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-03-01' };

async function serve(options?: SigningOptions) {
  const registry = await createRegistry({
    storage: await pgliteStorage({ dataDir: 'memory' }),
    preset: 'none',
    catalog: staticCatalog({ zaaktypen: [{ url: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar', informatieobjecttypen: [] }] }),
    authorization: 'development',
    logger: consoleLogger('silent'),
    plugins: options ? [signing(options)] : [],
  });
  const server = await registry.listen(0, '127.0.0.1');
  return { registry, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1` };
}

async function load(request: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<number> {
  const result = await autocannon({ ...request, connections: 8, duration: SECONDS });
  if (result.non2xx) throw new Error(`${result.non2xx} answers were not 2xx`);
  return result.requests.average;
}

/** Mean CPU milliseconds of `work`, over enough runs to matter. */
async function cpuMs(work: () => Promise<unknown>, runs = 500): Promise<number> {
  for (let i = 0; i < 50; i++) await work();
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / runs;
}

const rows: string[][] = [];

const plain = await serve();
const created = await fetch(`${plain.base}/zaken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(zaak) });
const plainZaak = ((await created.json()) as { url: string }).url;
const unsignedGet = await load({ url: plainZaak });
const unverifiedPost = await load({ url: `${plain.base}/zaken`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(zaak) });
await plain.registry.close();

const signed = await serve({ signResponses: REGISTRY, verifyRequests: { methods: { post: 'required' } }, clients: { development: [{ certificate: CLIENT.certificate }] } });
const body = JSON.stringify(zaak);
// One signature serves the whole run: its signing time stays within the window for 5 minutes.
const headers = await signRequest(signingKey(CLIENT), { method: 'POST', url: `${signed.base}/zaken`, headers: { 'content-type': 'application/json' }, body });
const signedZaak = ((await (await fetch(`${signed.base}/zaken`, { method: 'POST', headers, body })).json()) as { url: string }).url;
const signedGet = await load({ url: signedZaak });
const verifiedPost = await load({ url: `${signed.base}/zaken`, method: 'POST', headers, body });
await signed.registry.close();

rows.push(['GET /zaken/{uuid}', unsignedGet.toFixed(0), signedGet.toFixed(0), (signedGet / unsignedGet).toFixed(2)]);
rows.push(['POST /zaken', unverifiedPost.toFixed(0), verifiedPost.toFixed(0), (verifiedPost / unverifiedPost).toFixed(2)]);

const signer = signingKey(REGISTRY);
const message = { target: 'get /zaken/api/v1/zaken/x', header: (name: string) => (name === 'content-type' ? ['application/json'] : []), body };
const signMs = await cpuMs(() => signMessage(signer, message));
// The same two RSA-PSS signatures by Node's crypto alone: what jose and the header encoding add is the difference.
const input = Buffer.from(`${'h'.repeat(300)}.(request-target): ${message.target}\ncontent-type: application/json\ndigest: SHA-256=${'d'.repeat(44)}`);
const pss = { key: signer.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
const rawSignMs = await cpuMs(async () => [cryptoSign('sha256', input, pss), cryptoSign('sha256', input, pss)]);
const keys = new KeyRing(verificationKeys({ certificate: CLIENT.certificate }));
const url = new URL(`${signed.base}/zaken`);
const wire = new Map(Object.entries({ ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) }).map(([name, value]) => [name.toLowerCase(), value]));
const verifyMs = await cpuMs(() =>
  verifyMessage({ target: requestTarget('POST', url.pathname), header: (name) => (wire.has(name) ? [wire.get(name)!] : []), body: Buffer.from(body), allowedPars: new Set() }, { keys }),
);

console.log(`${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, ${SECONDS} s per run, 8 connections\n`);
console.log('| request | plain (req/s) | signing plugin (req/s) | ratio |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log(`\nSigning a response (Payload-Signature + Message-Signature, two PS256 signatures): ${signMs.toFixed(2)} ms CPU`);
console.log(`The two RSA-PSS signatures alone (node:crypto): ${rawSignMs.toFixed(2)} ms CPU; jose, the headers and the digest add ${(signMs - rawSignMs).toFixed(2)} ms`);
console.log(`Verifying a request (digest + two PS256 verifications): ${verifyMs.toFixed(2)} ms CPU`);
