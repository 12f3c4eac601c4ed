import type { NextFunction, Request, Response } from 'express';
import { ProblemError } from '../problem.js';

/** OPTIONS answers with the allowed methods; any other method a route lacks is a 405 with `Allow`. */
export function methodNotAllowed(allowed: string[]) {
  const allow = allowed.join(', ');
  return function methodNotAllowed(req: Request, res: Response, next: NextFunction): void {
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(new ProblemError('method_not_allowed', { detail: `Methode "${req.method}" niet toegestaan.`, headers: { Allow: allow } }));
  };
}
