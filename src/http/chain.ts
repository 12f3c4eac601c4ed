import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run in order as one Express layer, as Express runs a stack of them: a handler that
 * throws, rejects or passes an error to `next` ends the chain with that error; the last one's `next`
 * continues after the chain. One layer instead of one per handler: Express's router matched and
 * re-dispatched every layer of every request (a tenth of a cheap read's CPU).
 */
export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  return function chained(req: Request, res: Response, done: NextFunction): void {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) return done(error);
      const handler = handlers[index++];
      if (!handler) return done();
      try {
        const returned: unknown = handler(req, res, next);
        if (returned instanceof Promise) returned.then(undefined, (rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    next();
  };
}
