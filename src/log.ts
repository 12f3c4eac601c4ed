/** The logger the registry and its plugins write to; pass your own (pino, winston) to `createRegistry`. */
export interface Logger {
  debug(message: string, details?: Record<string, unknown>): void;
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
  /** The lowest level it writes, when it can say: the registry then skips building lines nobody keeps (the access log's). */
  readonly level?: LogLevel;
}

const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LEVELS)[number];

/** A one-line-per-entry logger on stderr. */
export function consoleLogger(level: LogLevel = 'info'): Logger {
  const threshold = LEVELS.indexOf(level);
  const write = (at: LogLevel) => (message: string, details?: Record<string, unknown>) => {
    if (LEVELS.indexOf(at) < threshold) return;
    const suffix = details && Object.keys(details).length ? ' ' + JSON.stringify(details) : '';
    process.stderr.write(`[zaakregister] ${at}: ${message}${suffix}\n`);
  };
  return { level, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
