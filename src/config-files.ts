import { readFileSync } from 'node:fs';
import type { SettingsProblem } from './schema/settings.js';
import { isRecord } from './is-record.js';

/** File-system failures in an operator's words. */
const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a directory',
};

/** The files a configuration names, by JSON Pointer, with whether their content must be JSON. */
function namedFiles(config: Record<string, unknown>): { path: string; file: string; json: boolean }[] {
  const files: { path: string; file: string; json: boolean }[] = [];
  const add = (holder: unknown, pointer: string, key: string, json = false) => {
    if (isRecord(holder) && typeof holder[key] === 'string' && holder[key]) files.push({ path: `${pointer}/${key}`, file: holder[key], json });
  };
  const catalog = config.catalog;
  if (isRecord(catalog) && catalog.type === 'static') add(catalog, '/catalog', 'file', true);
  for (const key of ['cert', 'key', 'clientCa']) add(config.tls, '/tls', key);
  const plugins = isRecord(config.plugins) ? config.plugins : {};
  const oauth = isRecord(plugins.oauth) ? plugins.oauth : {};
  add(oauth.fetch, '/plugins/oauth/fetch', 'caFile');
  add(oauth.introspection, '/plugins/oauth/introspection', 'privateKeyFile', true);
  const signing = isRecord(plugins.signing) ? plugins.signing : {};
  for (const key of ['privateKeyFile', 'certificateFile']) add(signing.signResponses, '/plugins/signing/signResponses', key);
  for (const [clientId, sources] of Object.entries(isRecord(signing.clients) ? signing.clients : {})) {
    if (Array.isArray(sources)) sources.forEach((source, index) => add(source, `/plugins/signing/clients/${clientId}/${index}`, 'file'));
  }
  return files;
}

/**
 * What `serve` would fail on when it opens the files the configuration names: each must exist and
 * be readable, JSON ones must parse. `check-config` reports them with the other problems.
 */
export function configFileProblems(config: unknown): SettingsProblem[] {
  if (!isRecord(config)) return [];
  const problems: SettingsProblem[] = [];
  for (const { path, file, json } of namedFiles(config)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      problems.push({ path, message: `cannot read ${file}: ${FILE_ERRORS[code] ?? (error as Error).message}` });
      continue;
    }
    if (!json) continue;
    try {
      if (!isRecord(JSON.parse(text))) problems.push({ path, message: `${file} is not a JSON object` });
    } catch (error) {
      problems.push({ path, message: `${file} is not valid JSON: ${(error as Error).message}` });
    }
  }
  return problems;
}
