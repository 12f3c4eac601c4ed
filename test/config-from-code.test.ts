import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { archive } from '../plugins/archive/index.js';
import { caching } from '../plugins/caching/index.js';
import { expand } from '../plugins/expand/index.js';
import { geoCrs } from '../plugins/geo-crs/index.js';
import { notifications } from '../plugins/notifications/index.js';
import { oauth } from '../plugins/oauth/index.js';
import { registrySync } from '../plugins/registry-sync/index.js';
import { signing } from '../plugins/signing/index.js';
import { versioning } from '../plugins/versioning/index.js';
import { zrcRules } from '../plugins/zrc-rules/index.js';
import { configProblems } from '../src/config.js';
import { createRegistry, openStorage, pgliteStorage, postgresStorage, staticAuthorizations, type Logger, type Plugin, type RegistryOptions } from '../src/index.js';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const source = staticAuthorizations([{ clientIds: ['demo'], label: 'Demo', heeftAlleAutorisaties: true, autorisaties: [] }]);

/** createRegistry's rejection message, or undefined when it assembled (then closed). */
async function refusal(options: RegistryOptions): Promise<string | undefined> {
  try {
    const registry = await createRegistry({ logger: quiet, ...options });
    await registry.close();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('options from code are checked as strictly as the config file', () => {
  it('awaits a storage given as the promise postgresStorage and pgliteStorage return', async () => {
    const registry = await createRegistry({ logger: quiet, preset: 'none', storage: pgliteStorage({ dataDir: 'memory' }) });
    try {
      assert.equal((await registry.migrate()).length, 0, 'migrated while assembling');
      assert.match(registry.services.storage.description, /memory/i);
    } finally {
      await registry.close();
    }
  });

  it('refuses a storage factory that was not called, and anything else that is no storage', async () => {
    assert.match((await refusal({ storage: postgresStorage as never }))!, /^createRegistry: storage is the function postgresStorage: call it, e.g. postgresStorage\(\{ connection \}\)/);
    assert.match((await refusal({ storage: {} as never }))!, /storage is no storage: pass pgliteStorage\(\.\.\.\), postgresStorage\(\.\.\.\) or a database string/);
  });

  it('refuses a preset it does not know, naming the presets there are', async () => {
    assert.equal(await refusal({ preset: 'standart' as never }), 'createRegistry: preset must be one of "standard", "none"');
  });

  it('refuses a plugin factory where its plugin belongs, and says to call it', async () => {
    assert.equal(await refusal({ plugins: [zrcRules as never] }), 'createRegistry: plugins[0] is the function zrcRules, not a plugin: call it (zrcRules())');
    assert.match((await refusal({ plugins: [[caching(), 'caching' as never]] }))!, /plugins\[0\]\[1\] is no plugin: a plugin is an object with a name/);
    assert.equal(
      await refusal({ plugins: [[caching(), [expand()]] as never] }),
      'createRegistry: plugins[0][1] is a list inside a list of plugins: plugins takes plugins and lists of plugins, one level deep',
    );
    // @ts-expect-error a factory is no Plugin: its `call` is not `never`
    const factory: Plugin = zrcRules;
    assert.equal(typeof factory, 'function');
  });

  it('names an unknown option of createRegistry with the one probably meant and the allowed ones', async () => {
    const message = await refusal({ storrage: 'memory' } as never);
    assert.match(message!, /^createRegistry: storrage is not a known option \(did you mean storage\?\); allowed: baseUrl, storage, catalog, /);
  });

  it('names an unknown key of info, the OpenAPI document\'s, with the one meant', async () => {
    assert.equal(
      await refusal({ preset: 'none', info: { titel: 'Zaken' } as never }),
      'createRegistry: info.titel is not a known option (did you mean title?); allowed: version, title, description, contact',
    );
    assert.match((await refusal({ preset: 'none', info: { contact: { mail: 'a@b.nl' } } as never }))!, /info\.contact\.mail is not a known option \(did you mean email\?\)/);
  });

  it('reports every problem of createRegistry at once, each under its path', async () => {
    const message = await refusal({ storrage: 'memory', preset: 'standart', drainTimeoutMs: -1, authorization: { source, clients: { demo: 'kort' }, leeway: 5 } } as never);
    assert.match(message!, /^createRegistry: 5 problems with its options:\n/);
    for (const line of [
      /  - storrage is not a known option/,
      /  - preset must be one of "standard", "none"/,
      /  - drainTimeoutMs must be >= 0/,
      /  - authorization\.leeway is not a known option \(did you mean leewaySeconds\?\)/,
      /  - authorization\.clients\.demo: the secret is 4 bytes; HS256 secrets need at least 32/,
    ]) {
      assert.match(message!, line);
    }
  });

  it("names each built-in plugin's unknown options, with the allowed ones", () => {
    assert.throws(() => zrcRules({ referenceCacheTtl: 1000 } as never), {
      message: 'zrcRules: referenceCacheTtl is not a known option (did you mean referenceCacheTtlMs?); allowed: referenceCacheTtlMs, eigenschapSpecificatie',
    });
    assert.throws(() => caching({ maxEntrie: 10 } as never), /caching: maxEntrie is not a known option \(did you mean maxEntries\?\); allowed: maxEntries, vary$/);
    assert.throws(() => geoCrs({ storageCRS: 'EPSG:28992' } as never), /geoCrs: storageCRS is not a known option \(did you mean storageCrs\?\)/);
    assert.throws(() => registrySync({ relations: ['zaakbesluit'] } as never), /registrySync: relations\[0\] must be one of "zaakinformatieobject", "zaakverzoek", "zaakcontactmoment"$/);
    assert.throws(() => signing({ verifyRequest: 'required' } as never), /signing: verifyRequest is not a known option \(did you mean verifyRequests\?\)/);
    assert.throws(() => versioning({ versions: [], deprecation: {} } as never), /versioning: deprecation is not a known option; allowed: versions$/);
    assert.throws(() => oauth({ issuers: ['https://as.example.nl'], audience: 'zrc', authorizations: source, leeway: 5 } as never), /oauth: leeway is not a known option \(did you mean leewaySeconds\?\)/);
    assert.throws(() => notifications({ url: 'https://nrc.example.nl/api/v1', kanal: 'zaken' } as never), /notifications: kanal is not a known option \(did you mean kanaal\?\)/);
    assert.throws(() => archive({ maxDepth: 2 } as never), /archive: maxDepth is not a known option$/);
    assert.throws(() => expand({ maxDepth: 2 } as never), /expand: maxDepth is not a known option; allowed: maxObjects, maxRemoteFetches, remoteConcurrency, remoteCredentials$/);
    assert.throws(() => expand({ maxObject: 2 } as never), /expand: maxObject is not a known option \(did you mean maxObjects\?\)/);
    assert.throws(() => expand({ remoteCredentials: 'client' } as never), /expand: remoteCredentials must be one of "caller", "registry"$/);
  });

  it('signing: takes verifyRequests.methods in either case and refuses a key that is no method of an operation', async () => {
    const registry = await createRegistry({ logger: quiet, preset: 'none', plugins: [signing({ verifyRequests: { methods: { POST: 'required' } } })] });
    try {
      const paths = registry.openapi().paths as Record<string, Record<string, { parameters?: { name: string; required: boolean }[] }>>;
      assert.deepEqual(paths['/zaken']!.post!.parameters?.find((parameter) => parameter.name === 'Message-Signature')?.required, true, 'POST /zaken verifies');
    } finally {
      await registry.close();
    }
    assert.throws(() => signing({ verifyRequests: { methods: { pots: 'required', HEAD: 'required' } } }), {
      name: 'OptionsError',
      message: [
        'signing: 2 problems with its options:',
        "  - verifyRequests.methods.pots is not a method of the registry's operations (did you mean post?); allowed: get, post, put, patch, delete (in either case)",
        "  - verifyRequests.methods.HEAD is not a method of the registry's operations; allowed: get, post, put, patch, delete (in either case)",
      ].join('\n'),
    });
  });

  it('signing: refuses verifyRequests.operations naming an operation the registry does not serve, with the one meant', async () => {
    const message = await refusal({ preset: 'none', plugins: [signing({ verifyRequests: { operations: { zaak_read: 'required', zaak_create: 'required' } } })] });
    assert.match(message!, /signing: verifyRequests\.operations\.zaak_read is not an operation of the core or of a plugin registered before signing \(did you mean zaak_retrieve\?\)$/);
  });

  it('names the missing url of the notifications plugin', () => {
    assert.throws(() => notifications({} as never), { name: 'OptionsError', message: 'notifications: url is required' });
    assert.throws(() => notifications({ url: 'nrc.example.nl' }), /notifications: 2 problems with its options:\n {2}- url must match pattern "\^https\?:\/\/"\n {2}- url must match format "uri"$/);
  });

  it('refuses a client without a secret, naming authorization.clients.<id>', async () => {
    const message = await refusal({ authorization: { source, clients: { demo: undefined as unknown as string } } });
    assert.equal(message, 'createRegistry: authorization.clients.demo has no secret (undefined): is the environment variable that holds it set?');
  });

  it('refuses secrets shorter than 32 bytes as the CLI does, unless allowWeakSecrets (then with a warning)', async () => {
    assert.match((await refusal({ authorization: { source, clients: { demo: 'kort!' } } }))!, /authorization\.clients\.demo: the secret is 5 bytes; HS256 secrets need at least 32 \(or set allowWeakSecrets: true/);
    const warnings: string[] = [];
    const registry = await createRegistry({ preset: 'none', logger: { ...quiet, warn: (message) => void warnings.push(message) }, authorization: { source, clients: { demo: 'kort!' }, allowWeakSecrets: true } });
    await registry.close();
    assert.deepEqual(warnings, ['allowWeakSecrets: the secrets of demo are shorter than 32 bytes (a test environment only)']);
  });

  it('refuses a database URL of an unknown scheme, from code and in the config file; nothing is created', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'zr-scheme-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const message = await refusal({ storage: 'postgress://zr@127.0.0.1:25433/zaken' });
      assert.equal(message, 'createRegistry: storage has the unknown scheme postgress://: the known schemes are postgres:// and postgresql:// (a directory or memory for the embedded database)');
      await assert.rejects(openStorage('mysql://localhost/zaken'), /^Error: the database has the unknown scheme mysql:\/\//);
      assert.equal(existsSync(path.join(dir, 'postgress:')), false, 'no directory made');
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
    assert.deepEqual(
      configProblems({ development: true, database: 'postgress://zr@127.0.0.1/zaken' }).map((problem) => `${problem.path}: ${problem.message}`),
      ['/database: has the unknown scheme postgress://: the known schemes are postgres:// and postgresql:// (a directory or memory for the embedded database)'],
    );
  });

  it('checks the options of postgresStorage and pgliteStorage: unknown names, a missing connection, a dataDir that is a URL; nothing is created', async () => {
    await assert.rejects(postgresStorage({ conection: 'postgres://postgres@127.0.0.1:5432/test' } as never), {
      name: 'OptionsError',
      message: 'postgresStorage: 2 problems with its options:\n  - connection is required\n  - conection is not a known option (did you mean connection?); allowed: connection, pool, preparedStatements, replicas, maxReplicaLagMs',
    });
    await assert.rejects(postgresStorage({ connection: 'postgress://zr@127.0.0.1/zaken' }), /^OptionsError: postgresStorage: connection has the unknown scheme postgress:\/\//);
    await assert.rejects(postgresStorage({ connection: 'postgres://postgres@127.0.0.1:5432/test', pool: { maximum: 4 } } as never), /postgresStorage: pool\.maximum is not a known option \(did you mean max\?\)/);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'zr-datadir-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await assert.rejects(pgliteStorage({ dataDir: 'postgress://zr@127.0.0.1:25433/zaken' }), { message: 'pgliteStorage: dataDir has the unknown scheme postgress://: the known schemes are postgres:// and postgresql:// (a directory or memory for the embedded database)' });
      await assert.rejects(pgliteStorage({ dataDir: 'postgres://zr@127.0.0.1/zaken' }), { message: 'pgliteStorage: dataDir is a PostgreSQL URL, no directory: pass it to postgresStorage({ connection })' });
      await assert.rejects(pgliteStorage({ datadir: 'memory' } as never), { message: 'pgliteStorage: 2 problems with its options:\n  - dataDir is required\n  - datadir is not a known option (did you mean dataDir?); allowed: dataDir' });
      assert.deepEqual(await readdir(dir), [], 'no directory made');
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
