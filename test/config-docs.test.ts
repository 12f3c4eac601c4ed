import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

type SchemaNode = {
  description?: string;
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
};

const SCRIPT = path.join(ROOT, 'scripts/config-reference.mjs');
const check = (file?: string) => spawnSync('node', [SCRIPT, '--check', ...(file ? [file] : [])], { cwd: ROOT, encoding: 'utf8' });

/** Every key below a schema node with its path, `$ref`s followed into the definitions. */
function keysOf(schema: { definitions: Record<string, SchemaNode> }, node: SchemaNode, prefix: string, out: [string, SchemaNode][]): void {
  const resolved = node.$ref ? schema.definitions[node.$ref.replace('#/definitions/', '')] : node;
  for (const [key, child] of Object.entries(resolved.properties ?? {})) {
    out.push([`${prefix}${key}`, child]);
    keysOf(schema, child, `${prefix}${key}.`, out);
  }
  const entries = resolved.additionalProperties;
  if (entries && typeof entries === 'object') keysOf(schema, entries.items ?? entries, `${prefix}<key>.`, out);
  if (resolved.items) keysOf(schema, resolved.items, `${prefix}[].`, out);
  for (const alternative of resolved.oneOf ?? resolved.anyOf ?? []) keysOf(schema, alternative, prefix, out);
}

describe('the configuration reference (docs/configuration.md)', function () {
  this.timeout(120_000);

  it('matches config.schema.json and the createRegistry options as checked in', () => {
    const result = check();
    assert.equal(result.status, 0, result.stderr);
  });

  it('fails the check, naming the command that regenerates it, when a copy differs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'config-docs-'));
    try {
      const copy = path.join(dir, 'configuration.md');
      const text = await readFile(path.join(ROOT, 'docs/configuration.md'), 'utf8');
      await writeFile(copy, text.replace('| `port` | integer |', '| `port` | string |'));
      const result = check(copy);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /differs from config\.schema\.json .*npm run docs:config/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('describes every key of the configuration file', async () => {
    const schema = JSON.parse(await readFile(path.join(ROOT, 'config.schema.json'), 'utf8'));
    const keys: [string, SchemaNode][] = [];
    keysOf(schema, schema, '', keys);
    const undescribed = keys.filter(([, node]) => !node.description && !(node.$ref && schema.definitions[node.$ref.replace('#/definitions/', '')].description)).map(([key]) => key);
    assert.deepEqual(undescribed, []);
    const doc = await readFile(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    for (const key of ['port', 'remote.credentials.<key>.secret', 'plugins.oauth.dpop.windowSeconds', 'outbox.leaseMs', 'applications[].autorisaties[].scopes']) {
      assert.ok(doc.includes(`| \`${key}\` |`), `${key} is in the reference`);
    }
  });
});
