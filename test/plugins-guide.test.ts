import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The guide's code is the examples' own: tested there, so it is right against the API.
describe('docs/plugins.md', () => {
  const guide = readFileSync(path.join(root, 'docs/plugins.md'), 'utf8');
  const examples = [...guide.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)];

  it('shows code only as it stands in the tested examples it names', () => {
    assert.ok(examples.length >= 7, `found ${examples.length} marked examples`);
    for (const [, file, code] of examples) {
      assert.ok(readFileSync(path.join(root, file), 'utf8').includes(code), `the block marked ${file} is not in that file:\n${code.slice(0, 200)}`);
    }
  });
});
