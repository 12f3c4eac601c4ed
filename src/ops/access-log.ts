import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import type { RequestHandler } from 'express';
import { pino, type Logger as Pino } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../log.js';
import { REDACTED_PATHS } from './logger.js';
import { requestIdFrom, scopeOf, REQUEST_ID_HEADER } from './request-scope.js';

/** A logger that is not pino still gets the access log: pino's lines are handed to it one by one. */
function pinoOver(log: Logger): Pino {
  const lines = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const { msg, level, time: _time, pid: _pid, hostname: _hostname, ...details } = JSON.parse(chunk.toString()) as Record<string, unknown>;
      const at = Number(level) >= 50 ? 'error' : Number(level) >= 40 ? 'warn' : 'info';
      log[at](String(msg), details);
      done();
    },
  });
  // Access lines are info (failed requests error): what the logger would drop is not even built.
  const level = log.level === undefined || log.level === 'debug' ? 'info' : log.level;
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, lines);
}

/** Requests an access logger already watches: the standalone app and the API router both have one. */
const watched = new WeakSet<IncomingMessage>();

/**
 * One line per request when its response is done (pino-http): method, path, route template,
 * operation, status, duration, client and request id. Runs after `requestScope`; the first access
 * logger a request passes writes its line.
 */
export function accessLog(log: Logger & { pino?: Pino }): RequestHandler {
  const logRequest = pinoHttp({
    logger: log.pino ?? pinoOver(log),
    genReqId: (req) => scopeOf(req)?.id ?? requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    quietReqLogger: true,
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    // Read when the response is done (routing and authentication have filled the scope in); the
    // request id is already bound by `quietReqLogger`, so it is not repeated here.
    customProps: (req) => {
      const scope = scopeOf(req);
      return { route: scope?.route, operation: scope?.operation, clientId: scope?.clientId };
    },
  });
  return (req, res, next) => {
    if (watched.has(req)) return next();
    watched.add(req);
    logRequest(req, res, next);
  };
}
