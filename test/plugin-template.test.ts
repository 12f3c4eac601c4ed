import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// The pack smoke runs them against the packed package; here they run against the source, with every test.
describe('the plugin template', () => {
  it("passes its own tests (hooks limited to operations, access limits in its statistics, representations, its endpoint)", async () => {
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--test', 'examples/plugin-template/test/plugin.test.ts'], { cwd: root }).catch(
      (error: { code?: number; stdout?: string }) => error,
    );
    assert.equal((run as { code?: number }).code ?? 0, 0, (run as { stdout?: string }).stdout);
    assert.match(String(run.stdout), /^# fail 0$/m);
  });
});
