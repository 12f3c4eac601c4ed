import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../problem.js';

/** Anything no route matched, trailing slashes included (never a redirect: ADR /core/no-trailing-slash). */
export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new ProblemError('not_found'));
}
