import { createWriteStream, existsSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { signZgwJwt } from '../auth/sign.js';
import { consoleLogger } from '../log.js';
import type { ZaakBundle } from '../plugin-types.js';
import { closeOutput, writeLine } from './migration.js';
import { progressReporter } from './progress.js';
import { UsageError } from './usage.js';

/** Where an export from another API is: the page to read next and the output's length once the pages before it were written. */
interface Cursor {
  page: string | null;
  offset: number;
  zaken: number;
}

/** The lists of a zaak in a Zaken API, by bundle key: a path with `{zaak}` (its URL) or `{uuid}`. */
const SUB_RESOURCES: [key: string, path: string][] = [
  ['rollen', '/rollen?zaak={zaak}'],
  ['statussen', '/statussen?zaak={zaak}'],
  ['zaakobjecten', '/zaakobjecten?zaak={zaak}'],
  ['zaakinformatieobjecten', '/zaakinformatieobjecten?zaak={zaak}'],
  ['zaakeigenschappen', '/zaken/{uuid}/zaakeigenschappen'],
  ['klantcontacten', '/klantcontacten?zaak={zaak}'],
  ['zaakbesluiten', '/zaken/{uuid}/besluiten'],
  ['zaakcontactmomenten', '/zaakcontactmomenten?zaak={zaak}'],
  ['zaakverzoeken', '/zaakverzoeken?zaak={zaak}'],
  ['resultaten', '/resultaten?zaak={zaak}'],
  ['audittrail', '/zaken/{uuid}/audittrail'],
];

const ATTEMPTS = 6;
const TIMEOUT_MS = 30_000;

/** Answers worth asking again: rate limited, or the server (or a proxy before it) failing. */
const retryable = (status: number) => status === 429 || status >= 500;

/**
 * A JSON reader of one API: only URLs on the base URL's origin (a `next` link elsewhere is refused),
 * with a timeout, and retries with exponential backoff (or the server's Retry-After) on 429, 5xx and
 * dropped connections. A 404 of a list is an empty list: not every API serves every resource.
 */
function apiReader(base: string, authorization: string, onRetry: (url: string, reason: string, waitMs: number) => void) {
  const origin = new URL(base).origin;
  async function get(url: string): Promise<unknown> {
    if (new URL(url).origin !== origin) throw new Error(`${url}: not on ${origin}, not followed`);
    for (let attempt = 1; ; attempt++) {
      let reason: string;
      let waitMs = 250 * 2 ** (attempt - 1);
      try {
        const response = await fetch(url, { headers: { authorization, accept: 'application/json', 'accept-crs': 'EPSG:4326' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
        if (response.ok) return await response.json();
        if (response.status === 404) {
          await response.body?.cancel();
          return undefined;
        }
        if (!retryable(response.status) || attempt >= ATTEMPTS) throw new Error(`${url}: HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
        await response.body?.cancel();
        const after = Number(response.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) waitMs = Math.min(after * 1000, 60_000);
        reason = `HTTP ${response.status}`;
      } catch (error) {
        if ((error as Error).message.startsWith(url) || attempt >= ATTEMPTS) throw error;
        reason = (error as Error).message;
      }
      onRetry(url, reason, waitMs);
      await sleep(waitMs);
    }
  }
  /** Every item of a list: a bare array, or pages followed by their `next` links. */
  async function all(url: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let next: string | null = url; next; ) {
      const page = (await get(next)) as { results?: Record<string, unknown>[]; next?: string | null } | Record<string, unknown>[] | undefined;
      if (!page) break;
      if (Array.isArray(page)) return page;
      items.push(...(page.results ?? []));
      next = page.next ?? null;
    }
    return items;
  }
  return { get, all };
}

/** A zaak's bundle, its lists read at once. */
async function bundleOf(api: ReturnType<typeof apiReader>, base: string, zaak: Record<string, unknown>): Promise<ZaakBundle> {
  const url = String(zaak.url);
  const uuid = String(zaak.uuid ?? url.split('/').pop());
  const lists = await Promise.all(SUB_RESOURCES.map(([, path]) => api.all(base + path.replace('{zaak}', encodeURIComponent(url)).replace('{uuid}', uuid))));
  const bundle: ZaakBundle = { zaak };
  SUB_RESOURCES.forEach(([key], i) => {
    if (key === 'resultaten') bundle.resultaat = lists[i][0] ?? null;
    else bundle[key] = lists[i];
  });
  return bundle;
}

/** `export --from-api`: every zaak of another Zaken API as bundles, resumable through the cursor file. */
export async function exportFromApi(flags: { 'from-api'?: string; 'client-id'?: string; secret?: string; bearer?: string; out?: string; cursor?: string; concurrency?: string; 'log-level'?: string }): Promise<number> {
  const base = flags['from-api']!.replace(/\/+$/, '');
  if (!/^https?:\/\/./.test(base)) throw new UsageError('export', '--from-api is the http(s) base URL of a Zaken API');
  if (!flags.bearer && (!flags['client-id'] || !flags.secret)) throw new UsageError('export', '--from-api needs --client-id and --secret, or --bearer');
  if (flags.concurrency !== undefined && !/^[1-9]\d?$/.test(flags.concurrency)) throw new UsageError('export', '--concurrency is a number from 1 to 99');
  const concurrency = Number(flags.concurrency ?? 4);
  const log = consoleLogger((flags['log-level'] as 'info') ?? 'info');
  const cursorFile = flags.cursor ?? (flags.out ? `${flags.out}.cursor` : undefined);
  let cursor: Cursor = { page: `${base}/zaken`, offset: 0, zaken: 0 };
  if (cursorFile && existsSync(cursorFile)) {
    cursor = JSON.parse(readFileSync(cursorFile, 'utf8')) as Cursor;
    if (cursor.page === null) {
      process.stdout.write(`${flags.out}: complete already (${cursor.zaken} zaken); remove ${cursorFile} to export again\n`);
      return 0;
    }
    // What was written after the last complete page is written again.
    if (flags.out && existsSync(flags.out) && statSync(flags.out).size > cursor.offset) truncateSync(flags.out, cursor.offset);
    log.info(`resuming at ${cursor.page} after ${cursor.zaken} zaken`);
  }
  const saveCursor = () => {
    if (!cursorFile) return;
    writeFileSync(`${cursorFile}.tmp`, JSON.stringify(cursor));
    renameSync(`${cursorFile}.tmp`, cursorFile);
  };
  const token = flags.bearer ?? (await signZgwJwt(flags['client-id']!, flags.secret!));
  const api = apiReader(base, `Bearer ${token}`, (url, reason, waitMs) => log.warn(`${reason} from ${url}; again in ${waitMs} ms`));
  const out = flags.out ? createWriteStream(flags.out, { flags: cursor.offset ? 'a' : 'w' }) : process.stdout;
  const progress = progressReporter('export', log);
  let offset = cursor.offset;
  while (cursor.page) {
    const page = (await api.get(cursor.page)) as { count?: number; next?: string | null; results?: Record<string, unknown>[] } | undefined;
    if (!page) throw new Error(`${cursor.page}: not found`);
    const zaken = page.results ?? [];
    for (let i = 0; i < zaken.length; i += concurrency) {
      for (const bundle of await Promise.all(zaken.slice(i, i + concurrency).map((zaak) => bundleOf(api, base, zaak)))) {
        const line = JSON.stringify(bundle);
        await writeLine(out, line);
        offset += Buffer.byteLength(line) + 1;
      }
    }
    cursor = { page: page.next ?? null, offset, zaken: cursor.zaken + zaken.length };
    // The cursor moves only once the page's lines are on disk.
    if (out !== process.stdout) await new Promise<void>((resolve, reject) => (out as NodeJS.WritableStream & { write(chunk: string, cb: (error?: Error | null) => void): boolean }).write('', (error) => (error ? reject(error) : resolve())));
    saveCursor();
    progress.update({ done: cursor.zaken, total: page.count });
  }
  await closeOutput(out);
  progress.finish({ done: cursor.zaken });
  log.info(`exported ${cursor.zaken} zaken from ${base}${flags.out ? ` to ${flags.out}` : ''}`);
  return 0;
}
