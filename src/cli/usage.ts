import { parseArgs } from 'node:util';
import { closest } from '../suggest.js';

/** A command line that cannot be run: one line naming the problem, exit 2. */
export class UsageError extends Error {
  constructor(
    readonly command: string,
    message: string,
  ) {
    super(message);
  }
}

/** Every option of every command; each command reads the ones it takes. */
const OPTIONS = {
  config: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-client-ca': { type: 'string' },
  'metrics-port': { type: 'string' },
  database: { type: 'string' },
  development: { type: 'boolean' },
  'log-level': { type: 'string' },
  status: { type: 'string' },
  kind: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  'client-id': { type: 'string' },
  secret: { type: 'string' },
  'user-id': { type: 'string' },
  'user-representation': { type: 'string' },
  'expires-in': { type: 'string' },
  out: { type: 'string' },
  in: { type: 'string' },
  filter: { type: 'string', multiple: true },
  rewrite: { type: 'string', multiple: true },
  validation: { type: 'string' },
  'on-conflict': { type: 'string' },
  'dry-run': { type: 'boolean' },
  concurrency: { type: 'string' },
  verify: { type: 'string' },
  report: { type: 'string' },
  'from-api': { type: 'string' },
  cursor: { type: 'string' },
  bearer: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** The command line's flags and positionals; an unknown or malformed flag is a `UsageError` naming it. */
export function parseCommandLine(argv: string[]) {
  const command = argv.find((a) => !a.startsWith('-')) ?? '';
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(argv) : undefined;
    if (unknown) {
      const suggestion = closest(unknown.replace(/^-+/, ''), Object.keys(OPTIONS));
      throw new UsageError(command, `unknown option ${unknown}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`);
    }
    throw new UsageError(command, (error as Error).message);
  }
}

/** The first flag of `argv` that is no option (`--prot`, `--prot=9000`, `-x`). */
function unknownOption(argv: string[]): string | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0] : arg.slice(1, 2);
    const known = arg.startsWith('--') ? Object.hasOwn(OPTIONS, name) : Object.values(OPTIONS).some((o) => 'short' in o && o.short === name);
    if (!known) return arg.startsWith('--') ? `--${name}` : `-${name}`;
  }
  return undefined;
}
