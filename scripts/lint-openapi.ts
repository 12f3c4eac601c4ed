/**
 * Lints the served OpenAPI document with the Logius API Design Rules 2.2 Spectral ruleset and fails
 * on any error except the deviations the Zaken API standard itself mandates (docs/adr-deviations.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync } from 'node:crypto';
import { consoleLogger, createRegistry, oauth, signing, staticAuthorizations } from '../src/index.js';

const RULESET = process.env.ADR_RULESET ?? fileURLToPath(new URL('../reference/adr-2.2-spectral-ruleset.yaml', import.meta.url));

interface SpectralResult {
  code: string;
  message: string;
  path: (string | number)[];
  severity: number;
}

/** Each mandated deviation: the rule, which findings it covers, and why (mirrored in docs/adr-deviations.md). */
const DEVIATIONS: { rule: string; covers: (finding: SpectralResult, document: any) => boolean; reason: string }[] = [
  {
    rule: 'nlgov:query-keys-camel-case',
    covers: (f, document) => {
      const found = f.path.reduce((node: any, key) => node?.[key], document);
      const name = typeof found === 'string' ? found : found?.name;
      return typeof name === 'string' && name.includes('__');
    },
    reason: 'Zaken API filter keys (1.5.1 and 1.8.0) use Django lookups (`bronorganisatie__in`, `rol__betrokkeneType`, ...).',
  },
  {
    rule: 'nlgov:query-keys-camel-case',
    covers: (f, document) => ['bbox-crs', 'filter-crs'].includes(f.path.reduce((node: any, key) => node?.[key], document)),
    reason: 'The geospatial rules and OGC API Features (Part 2, Part 3) name the CRS parameters `bbox-crs` and `filter-crs`.',
  },
  {
    rule: 'nlgov:paths-kebab-case',
    covers: (f) => f.path[0] === 'paths' && f.path[1] === '/zaaknummer_reserveren',
    reason: 'Zaken API 1.7 names the reservation path `/zaaknummer_reserveren`.',
  },
];

// With the oauth plugin's `oauth2` scheme and per-operation scopes, and the signing plugin's headers
// (a throwaway key: only the document is linted).
const login = 'https://login.example.nl';
const oauthPlugin = oauth({
  issuers: [login],
  audience: 'https://zaken.example.nl/zaken/api/v1',
  authorizations: staticAuthorizations([]),
  documentedFlow: { authorizationUrl: `${login}/authorize`, tokenUrl: `${login}/token` },
});
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingPlugin = signing({ signResponses: { privateKey, kid: 'lint' }, verifyRequests: { default: 'optional', methods: { post: 'required' } } });
const registry = await createRegistry({ storage: 'memory', migrate: false, logger: consoleLogger('silent'), plugins: [oauthPlugin, signingPlugin] });
const document = registry.openapi();
await registry.close();
const file = path.join(mkdtempSync(path.join(tmpdir(), 'openapi-')), 'openapi.json');
writeFileSync(file, JSON.stringify({ ...document, servers: [{ url: 'https://zaken.example.nl/zaken/api/v1' }] }, null, 2));

let output: string;
try {
  output = execFileSync('npx', ['spectral', 'lint', '--ruleset', RULESET, '--format', 'json', '--quiet', file], { encoding: 'utf8' });
} catch (error) {
  // spectral exits non-zero when it finds errors; its JSON is still on stdout.
  output = (error as { stdout?: string }).stdout ?? '';
  if (!output.trim().startsWith('[')) throw error;
}
const findings = JSON.parse(output) as SpectralResult[];
const errors = findings.filter((f) => f.severity === 0);
const unexplained = errors.filter((f) => !DEVIATIONS.some((d) => d.rule === f.code && d.covers(f, document)));
for (const deviation of DEVIATIONS) {
  const count = errors.filter((f) => f.code === deviation.rule && deviation.covers(f, document)).length;
  console.log(`mandated deviation ${deviation.rule}: ${count} finding(s) — ${deviation.reason}`);
}
console.log(`ADR 2.2 lint: ${errors.length} error(s), ${unexplained.length} not covered by a mandated deviation, ${findings.length - errors.length} warning(s)/hint(s)`);
for (const f of unexplained) console.log(`  ${f.code} at ${f.path.join('.')}: ${f.message}`);
process.exit(unexplained.length ? 1 : 0);
