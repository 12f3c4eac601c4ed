import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pluginFileSchemas } from '../src/presets.js';

describe('config.schema.json', () => {
  it("takes each built-in plugin's options from the plugin's own schema (npm run schema:config)", () => {
    const schema = JSON.parse(readFileSync(new URL('../config.schema.json', import.meta.url), 'utf8'));
    for (const [name, fileSchema] of Object.entries(pluginFileSchemas())) {
      assert.deepEqual(schema.properties.plugins.properties[name], JSON.parse(JSON.stringify(fileSchema)), `plugins.${name}`);
    }
  });
});
