import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const CONTRACT_PATH = fileURLToPath(new URL('../reference/zaken-api-1.5.1.openapi.yaml', import.meta.url));

/** The Zaken API 1.5.1 contract, parsed. */
export function loadContract(file = CONTRACT_PATH): any {
  // The published file continues one double-quoted string on a line indented less than its key, which
  // strict YAML parsers refuse; joining those escaped line breaks first gives the same string.
  return parse(readFileSync(file, 'utf8').replace(/\\\n\s*\\ /g, ' '));
}
