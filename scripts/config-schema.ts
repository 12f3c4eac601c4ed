// Writes the built-in plugins' option schemas into config.schema.json (`npm run schema:config`):
// each plugin's schema is the one source; test/config-schema.test.ts fails when the file lags behind.
import { readFileSync, writeFileSync } from 'node:fs';
import { pluginFileSchemas } from '../src/presets.js';

const file = new URL('../config.schema.json', import.meta.url);
const schema = JSON.parse(readFileSync(file, 'utf8'));
Object.assign(schema.properties.plugins.properties, pluginFileSchemas());
writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
console.log(`config.schema.json: the options of ${Object.keys(pluginFileSchemas()).join(', ')} written`);
