import assert from 'node:assert/strict';
import { requireOmschrijving } from '../examples/vendor-plugin.js';
import { PLUGIN_API_VERSION, PluginError, ProblemError, createRegistry, consoleLogger, pgliteStorage, type Plugin, type RequestContext } from '../src/index.js';
import { PluginHost } from '../src/plugin-host.js';
import { startRegistry, testCatalog, zaakInput, type TestServer } from './helpers/registry.js';

describe('plugin host and request lifecycle', () => {
  let api: TestServer;
  const calls: string[] = [];
  const failures: Record<string, string | undefined> = {};
  const record = (name: string) => async (ctx: RequestContext) => {
    calls.push(`${name}${ctx.tx ? '(tx)' : ''}`);
    if (failures[name] === 'problem') throw new ProblemError('permission_denied', { detail: `refused in ${name}` });
    if (failures[name] === 'crash') throw new Error(`boom in ${name}`);
  };
  const tracer: Plugin = {
    name: 'tracer',
    onRequest: record('onRequest'),
    authorize: record('authorize'),
    validate: record('validate'),
    beforeWrite: record('beforeWrite'),
    afterWrite: record('afterWrite'),
    afterCommit: record('afterCommit'),
    serialize: async (body) => {
      calls.push('serialize');
      return body && typeof body === 'object' && 'url' in body ? { ...body, traced: true } : undefined;
    },
    onResponse: record('onResponse'),
  };
  const early: Plugin = { name: 'early', onRequest: { order: 'pre', handler: async () => void calls.push('pre:onRequest') } };
  const late: Plugin = { name: 'late', onRequest: { order: 'post', handler: async () => void calls.push('post:onRequest') } };

  before(async () => {
    api = await startRegistry(await pgliteStorage({ dataDir: 'memory' }), { plugins: [late, tracer, early, requireOmschrijving()] });
  });
  after(async () => api?.close());
  beforeEach(() => {
    calls.length = 0;
    for (const key of Object.keys(failures)) delete failures[key];
  });

  it('runs the hooks of a write in lifecycle order, pre/post respected, write hooks (and authorize again) inside the transaction', async () => {
    const created = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'x' }) });
    assert.equal(created.status, 201);
    assert.deepEqual(calls, ['pre:onRequest', 'onRequest', 'post:onRequest', 'authorize', 'validate', 'authorize(tx)', 'beforeWrite(tx)', 'afterWrite(tx)', 'afterCommit', 'serialize', 'onResponse']);
    assert.equal(created.body.traced, true, 'serialize may replace the body');
    assert.equal(created.headers.get('x-gemeente-regels'), 'omschrijving-verplicht');
  });

  it('runs no write hooks on reads', async () => {
    await api.request('/zaken');
    assert.deepEqual(calls, ['pre:onRequest', 'onRequest', 'post:onRequest', 'authorize', 'serialize', 'onResponse']);
  });

  it('ends the request with the problem a hook throws, and still runs onResponse', async () => {
    failures.authorize = 'problem';
    const response = await api.request('/zaken');
    assert.equal(response.status, 403);
    assert.equal(response.body.code, 'permission_denied');
    assert.equal(response.body.detail, 'refused in authorize');
    assert.equal(calls.at(-1), 'onResponse');
    assert.equal(response.headers.get('x-gemeente-regels'), 'omschrijving-verplicht');
    assert.equal(response.headers.get('api-version'), '1.8.0');
  });

  it('rolls the write back when afterWrite fails: no half-written record, a 500 problem', async () => {
    failures.afterWrite = 'crash';
    const response = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'x', identificatie: 'ROLLBACK' }) });
    assert.equal(response.status, 500);
    assert.equal(response.body.code, 'error');
    assert.doesNotMatch(response.text, /boom/, 'internals are not leaked');
    assert.equal(await api.registry.services.storage.knex('zaak').where({ identificatie: 'ROLLBACK' }).first(), undefined);
    assert.ok(!calls.includes('afterCommit'));
  });

  it('logs but does not answer an afterCommit failure', async () => {
    failures.afterCommit = 'crash';
    const response = await api.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: 'x' }) });
    assert.equal(response.status, 201);
  });

  it('runs the vendor example rule', async () => {
    const response = await api.request('/zaken', { method: 'POST', json: zaakInput() });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.invalidParams.map((p: { name: string; code: string }) => [p.name, p.code]), [['omschrijving', 'required']]);
  });

  it('answers 401 without an authenticate hook that accepts the request', async () => {
    const registry = await createRegistry({ storage: 'memory', catalog: testCatalog(), logger: consoleLogger('silent') });
    const server = await registry.listen(0, '127.0.0.1');
    const port = (server.address() as { port: number }).port;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/zaken/api/v1/zaken`);
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { code: string }).code, 'not_authenticated');
      assert.equal((await fetch(`http://127.0.0.1:${port}/zaken/api/v1/openapi.json`)).status, 200, 'the OpenAPI document is public');
    } finally {
      await registry.close();
    }
  });

  it('checks plugins when assembling: names, dependencies, setup only during assembly', async () => {
    await assert.rejects(createRegistry({ storage: 'memory', plugins: [{ name: 'a' }, { name: 'a' }] }), /registered twice/);
    await assert.rejects(createRegistry({ storage: 'memory', plugins: [{ name: 'b', dependencies: ['signing'] }] }), /needs plugin "signing"/);
    await assert.rejects(createRegistry({ storage: 'memory', plugins: [{ name: 'core' }] }), /plugin name "core" is reserved for the registry's core: give the plugin another name/);
    let saved: { addMigrations(m: never[]): void; addCounter(c: { name: string; help: string }): unknown } | undefined;
    const registry = await createRegistry({
      storage: 'memory',
      logger: consoleLogger('silent'),
      plugins: [{ name: 'keeper', setup: (setupApi) => void (saved = setupApi) }],
    });
    try {
      assert.throws(() => saved!.addMigrations([]), /only possible during setup/);
      assert.throws(() => saved!.addCounter({ name: 'zaakregister_keeper_total', help: 'late' }), /only possible during setup/);
    } finally {
      await registry.close();
    }
  });

  it('names the plugin and the hook of a failure, in setup and in hooks', async () => {
    const setupFailure = await createRegistry({ storage: 'memory', plugins: [{ name: 'broken', setup: () => Promise.reject(new Error('no config')) }] }).catch((error) => error);
    assert.ok(setupFailure instanceof PluginError);
    assert.deepEqual([setupFailure.plugin, setupFailure.hook, setupFailure.message], ['broken', 'setup', 'plugin "broken" failed in setup: no config']);
    // A handler that throws and one that rejects are named alike.
    for (const validate of [() => { throw new Error('boom'); }, async () => { throw new Error('boom'); }]) {
      const host = new PluginHost([{ name: 'fine' }, { name: 'crashing', validate }], consoleLogger('silent'));
      const hookFailure = await (async () => host.run('validate', {} as RequestContext))().catch((error) => error);
      assert.ok(hookFailure instanceof PluginError);
      assert.deepEqual([hookFailure.plugin, hookFailure.hook, hookFailure.message], ['crashing', 'validate', 'plugin "crashing" failed in validate: boom']);
    }
  });

  it('runs synchronous handlers without a promise, and keeps the order when some are asynchronous', async () => {
    const calls: string[] = [];
    const sync = (name: string) => ({ name, authorize: () => void calls.push(name) });
    const later = (name: string) => ({ name, authorize: async () => void calls.push(await Promise.resolve(name)) });
    const ctx = {} as RequestContext;
    assert.equal(new PluginHost([sync('a'), sync('b')], consoleLogger('silent')).run('authorize', ctx), undefined);
    assert.deepEqual(calls, ['a', 'b']);
    calls.length = 0;
    const mixed = new PluginHost([sync('a'), later('b'), sync('c'), later('d'), sync('e')], consoleLogger('silent')).run('authorize', ctx);
    assert.ok(mixed instanceof Promise);
    assert.deepEqual(calls, ['a'], 'b runs on, c waits for it');
    await mixed;
    assert.deepEqual(calls, ['a', 'b', 'c', 'd', 'e']);
    // The first result wins, synchronous or not; serialize hands each result to the next hook.
    const principal = { clientId: 'x' };
    const first = new PluginHost([{ name: 'none', authenticate: async () => undefined }, { name: 'one', authenticate: () => principal as never }, { name: 'never', authenticate: () => assert.fail() }], consoleLogger('silent'));
    assert.equal(await first.authenticate(ctx), principal);
    const serializing = new PluginHost(
      [{ name: 'wrap', serialize: async (body: unknown) => ({ wrapped: body }) }, { name: 'keep', serialize: () => undefined }, { name: 'tag', serialize: (body: unknown) => ({ ...(body as object), tag: 1 }) }],
      consoleLogger('silent'),
    );
    assert.deepEqual(await serializing.serialize({ a: 1 }, ctx), { wrapped: { a: 1 }, tag: 1 });
  });

  it('refuses a plugin written for a newer or another major plugin API, with what to do', async () => {
    const [major, minor] = PLUGIN_API_VERSION.split('.').map(Number);
    const load = (apiVersion: string) => createRegistry({ storage: 'memory', logger: consoleLogger('silent'), plugins: [{ name: 'vendor', apiVersion }] });
    await assert.rejects(load(`${major}.${minor + 1}`), { message: `plugin "vendor" needs zaakregister plugin API ${major}.${minor + 1}, but this zaakregister provides ${PLUGIN_API_VERSION}: upgrade zaakregister` });
    await assert.rejects(load(`${major + 1}.0`), /upgrade zaakregister/);
    await assert.rejects(load(`${major - 1}.0`), /use a version of the plugin written for this one/);
    await assert.rejects(load('1'), /expected major\.minor/);
    const registry = await load(`${major}.0`);
    await registry.close();
  });

  it('lets a plugin add an operation, a query parameter, a migration, a problem code and OpenAPI', async () => {
    const plugin: Plugin = {
      name: 'notes',
      setup(setupApi) {
        setupApi.defineProblem('note-too-long', 400, 'Notitie te lang.');
        setupApi.addMigrations([{ name: 'notes/001', up: (knex) => knex.schema.createTable('note', (t) => void t.text('text')) }]);
        setupApi.addQueryParameter('zaak_list', { name: 'notesOnly', schema: { type: 'boolean' } });
        setupApi.addOperation({
          id: 'note_create',
          method: 'post',
          path: '/notities',
          action: 'create',
          write: true,
          requestBody: { type: 'object', properties: { text: { type: 'string', maxLength: 5 } }, required: ['text'] },
          async execute(ctx) {
            await ctx.tx!('note').insert({ text: ctx.data!.text });
            ctx.response = { status: 201, headers: {}, body: { text: ctx.data!.text } };
          },
          openapi: { summary: 'Notitie maken.', successStatus: 201, responseSchema: { type: 'object' } },
        });
      },
    };
    const server = await startRegistry(await pgliteStorage({ dataDir: 'memory' }), { plugins: [plugin] });
    try {
      assert.equal((await server.request('/notities', { method: 'POST', json: { text: 'hallo' } })).status, 201);
      const tooLong = await server.request('/notities', { method: 'POST', json: { text: 'te lang' } });
      assert.deepEqual(tooLong.body.invalidParams[0], { name: 'text', code: 'max_length', reason: 'Zorg ervoor dat dit veld niet meer dan 5 karakters bevat.' });
      assert.equal((await server.request('/zaken?notesOnly=true')).status, 200);
      const document = server.registry.openapi() as { paths: Record<string, unknown> };
      assert.ok(document.paths['/notities']);
    } finally {
      await server.close();
    }
  });
});
