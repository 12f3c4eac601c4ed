import type { NextFunction, Request, Response } from 'express';

/** `API-Version: <semver>` on every response of the registry, errors included (ADR /core/version-header). */
export function apiVersionHeader(version: string) {
  return function apiVersion(_req: Request, res: Response, next: NextFunction): void {
    res.setHeader('API-Version', version);
    next();
  };
}
