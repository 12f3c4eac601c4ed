import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../log.js';
import { problemResponse } from './problem-response.js';

/** Last in the stack: errors from the built-in middleware become problem+json. */
export function errorHandler(log: Logger) {
  return function errorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
    if (res.headersSent) return next(error);
    const response = problemResponse(error, log, { path: req.path });
    for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
    res.status(response.status).end(JSON.stringify(response.body));
  };
}
