import { pino, type Logger as Pino, type LoggerOptions } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Logger, LogLevel } from '../log.js';
import { currentRequest } from './request-scope.js';

/**
 * Never logged, wherever they appear: credentials in headers (the access log logs headers) and
 * secrets, tokens and passwords in the details a plugin passes, one or two levels deep.
 */
const SECRET_KEYS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-signature', 'x-hub-signature', 'x-hub-signature-256', 'signature', 'secret', 'secrets', 'clientSecret', 'token', 'accessToken', 'password', 'apiKey', 'auth'];
const member = (key: string) => (/^\w+$/.test(key) ? `.${key}` : `["${key}"]`);
export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [
  ...(/^\w+$/.test(key) ? [key] : []),
  `*${member(key)}`,
  `*.*${member(key)}`,
]);

export interface JsonLoggerOptions {
  level?: LogLevel;
  /** Human-readable lines (pino-pretty) instead of JSON, for development. */
  pretty?: boolean;
  /** Where JSON lines go; default stdout. */
  destination?: NodeJS.WritableStream;
}

/** A pino logger as the registry configures it: JSON on stdout, secrets redacted. */
export function jsonLogger(options: JsonLoggerOptions = {}): Pino {
  const settings: LoggerOptions = {
    name: 'zaakregister',
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  const destination = options.destination ?? process.stdout;
  // In-process and synchronous, so the last lines before exit are not lost in a worker.
  return pino(settings, options.pretty ? PinoPretty({ destination, sync: true }) : destination);
}

/** The registry's `Logger` over a pino logger, which the access log then writes to as well. */
export interface PinoBackedLogger extends Logger {
  readonly pino: Pino;
}

export function pinoLogger(base: Pino): PinoBackedLogger {
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, details?: Record<string, unknown>) => base[level](details ?? {}, message);
  return { pino: base, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** Any `Logger`, each line carrying the id of the request it was written for. */
export function withRequestIds<L extends Logger>(log: L): L {
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string, details?: Record<string, unknown>) => {
    const reqId = currentRequest()?.id;
    log[level](message, reqId ? { ...details, reqId } : details);
  };
  return { ...log, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
