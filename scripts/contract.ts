import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The contract the registry serves. */
export const CONTRACT_PATH = fileURLToPath(new URL('../reference/zaken-api-1.8.0.openapi.yaml', import.meta.url));

/** A Zaken API contract (by default the one served, 1.8.0), parsed. */
export function loadContract(file = CONTRACT_PATH): any {
  // The published file continues one double-quoted string on a line indented less than its key, which
  // strict YAML parsers refuse; joining those escaped line breaks first gives the same string.
  return parse(readFileSync(file, 'utf8').replace(/\\\n\s*\\ /g, ' '));
}
