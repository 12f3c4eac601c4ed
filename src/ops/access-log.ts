import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger as Pino } from 'pino';
import type { Logger, LogLevel } from '../log.js';
import { requestIdFrom, scopeOf, REQUEST_ID_HEADER } from './request-scope.js';

/** Requests an access logger already watches: the standalone app and the API router both have one. */
const watched = new WeakSet<IncomingMessage>();

const ORDER: LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** Whether the logger keeps lines of `level`: a line nobody keeps is not built. */
function keeps(log: Logger & { pino?: Pino }, level: 'info' | 'error'): boolean {
  if (log.pino) return log.pino.isLevelEnabled(level);
  return log.level === undefined || ORDER.indexOf(level) >= ORDER.indexOf(log.level);
}

/**
 * One line per request when its response is done: method, path, route template, operation, status,
 * duration (`responseTime`, ms), client and request id; `request failed` at error level for a 5xx.
 * Runs after `requestScope`; the first access logger a request passes writes its line. Written
 * straight to the logger (pino's own `info` when it is pino): no child logger per request.
 */
export function accessLog(log: Logger & { pino?: Pino }): RequestHandler {
  return (req, res, next) => {
    if (watched.has(req)) return next();
    watched.add(req);
    const started = performance.now();
    res.once('close', () => {
      const failed = res.statusCode >= 500;
      const level = failed ? 'error' : 'info';
      if (!keeps(log, level)) return;
      // Read now: routing and authentication have filled the scope in.
      const scope = scopeOf(req);
      const line = {
        reqId: scope?.id ?? requestIdFrom(req.headers[REQUEST_ID_HEADER]),
        req: { method: req.method, path: req.originalUrl.split('?')[0] },
        res: { status: res.statusCode },
        responseTime: Math.round(performance.now() - started),
        route: scope?.route,
        operation: scope?.operation,
        clientId: scope?.clientId,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      const message = failed ? 'request failed' : 'request completed';
      if (log.pino) log.pino[level](line, message);
      else log[level](message, line);
    });
    next();
  };
}
