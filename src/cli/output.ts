import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CliConfig } from '../config.js';
import type { Logger, LogLevel } from '../log.js';
import { jsonLogger, pinoLogger } from '../ops/logger.js';
import { isDatabaseDirectory } from '../storage/index.js';

const LEVELS: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** Plain lines on a terminal: the message, and the details of warnings and errors. */
function humanLogger(level: LogLevel, destination: NodeJS.WriteStream): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>) => (message: string, details?: Record<string, unknown>) => {
    if (LEVELS.indexOf(at) < LEVELS.indexOf(level)) return;
    const shown = at === 'warn' || at === 'error' || at === 'debug';
    const suffix = shown && details && Object.keys(details).length ? ` ${JSON.stringify(details)}` : '';
    destination.write(`${at === 'info' ? '' : `${at}: `}${message}${suffix}\n`);
  };
  return { level, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/**
 * Where a command logs. `serve` and `deliver` log JSON lines on stdout (human-readable ones in
 * development mode). The other commands print their results on stdout and keep it clean: they log
 * on stderr, plain lines on a terminal and JSON lines otherwise.
 */
export function commandLogger(command: string, config: CliConfig): Logger {
  if (command === 'serve' || command === 'deliver') return pinoLogger(jsonLogger({ level: config.logLevel, pretty: config.development, destination: process.stdout }));
  if (process.stderr.isTTY) return humanLogger(config.logLevel ?? 'info', process.stderr);
  return pinoLogger(jsonLogger({ level: config.logLevel, destination: process.stderr }));
}

/** A line before PGlite initialises a new data directory: that takes a while, and nothing else says why. */
export function announceFreshDatabase(database: string, log: Logger): void {
  if (!isDatabaseDirectory(database)) return;
  const dir = path.resolve(database);
  if (!existsSync(path.join(dir, 'PG_VERSION'))) log.info(`initialising embedded database at ${dir} (the first start takes a while)`, { database: dir });
}
