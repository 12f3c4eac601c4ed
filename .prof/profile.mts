import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { readdirSync, readFileSync } from 'node:fs';
import { signZgwJwt, openStorage } from '../src/index.js';
const db = 'postgres://postgres@127.0.0.1:5432/zaakregister_bench_1000000';
const scenario = process.argv[2] ?? 'get';
const storage = await openStorage(db);
const sample = await storage.knex('zaak').orderBy('id').limit(500).select('uuid', 'zaaktype');
await storage.close();
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof/out', '--import', 'tsx', 'bench/api/registry-server.ts'], { cwd: '/work/main', env: { ...process.env, DATABASE: db }, stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<string>((r) => child.stdout!.on('data', (c) => { const m = /ready (\d+)/.exec(String(c)); if (m) r(m[1]); }));
const auth = { authorization: `Bearer ${await signZgwJwt('bench-alles', 'bench-secret')}` };
const requests: any[] = scenario === 'get' ? sample.map((z: any) => ({ method: 'GET', path: `/zaken/api/v1/zaken/${z.uuid}` }))
  : scenario === 'list' ? [{ method: 'GET', path: '/zaken/api/v1/zaken?page=1' }]
  : Array.from({ length: 50 }, () => ({ method: 'POST', path: '/zaken/api/v1/zaken', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ zaaktype: sample[0].zaaktype, bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2026-01-01' }) }));
const r = await autocannon({ url: `http://127.0.0.1:${port}`, connections: 16, duration: 8, requests, headers: auth });
console.log(scenario, r.requests.average, 'req/s', r.latency.p50, r['2xx'], r.non2xx);
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
const file = readdirSync('/tmp/prof/out').map((f) => [f, readFileSync('/tmp/prof/out/' + f).length] as const).sort((a, b) => b[1] - a[1])[0][0];
const profile = JSON.parse(readFileSync(`/tmp/prof/out/${file}`, 'utf8'));
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n: any) => [n.id, n]));
const dt = profile.timeDeltas; const samples = profile.samples;
for (let i = 0; i < samples.length; i++) { const n: any = byId.get(samples[i]); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0)); }
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 35)) console.log((100 * v / total).toFixed(1).padStart(5), k);
// Parents of the hottest native frames.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const chains = new Map<string, number>();
for (let i = 0; i < samples.length; i++) {
  let n: any = byId.get(samples[i]);
  if (!['writev', 'writeUtf8String', 'writeBuffer'].includes(n.callFrame.functionName)) continue;
  const chain: string[] = [];
  for (let k = 0; k < 8 && n; k++) { chain.push(`${n.callFrame.functionName}@${n.callFrame.url.split('/').slice(-1)[0]}:${n.callFrame.lineNumber}`); n = byId.get(parent.get(n.id)!); }
  const key = chain.join(' < ');
  chains.set(key, (chains.get(key) ?? 0) + (dt[i] ?? 0));
}
for (const [k, v] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log((100 * v / total).toFixed(1), k);
// Inclusive time of our own frames.
const inclusive = new Map<string, number>();
for (let i = 0; i < samples.length; i++) {
  let n: any = byId.get(samples[i]);
  const seen = new Set<string>();
  while (n) {
    const cf = n.callFrame;
    if (/\/(src|plugins)\/|knex\/lib|pg\/lib|express|router\/|jose/.test(cf.url)) {
      const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`;
      if (!seen.has(key)) { seen.add(key); inclusive.set(key, (inclusive.get(key) ?? 0) + (dt[i] ?? 0)); }
    }
    n = byId.get(parent.get(n.id)!);
  }
}
console.log('--- inclusive');
for (const [k, v] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log((100 * v / total).toFixed(1).padStart(5), k);
