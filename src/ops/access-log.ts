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
  return pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, lines);
}

/**
 * One line per request when its response is done (pino-http): method, path, route template,
 * operation, status, duration, client and request id. Runs after `requestScope`.
 */
export function accessLog(log: Logger & { pino?: Pino }): RequestHandler {
  return pinoHttp({
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
    customProps: (req) => {
      const scope = scopeOf(req);
      return { reqId: scope?.id, route: scope?.route, operation: scope?.operation, clientId: scope?.clientId };
    },
  });
}
