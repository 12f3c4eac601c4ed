import type { NextFunction, Request, Response } from 'express';

/**
 * `API-Version: <semver>` on every response of the registry, errors included (ADR /core/version-header),
 * with the version's own headers (a deprecation schedule).
 */
export function apiVersionHeader(version: string, headers: Record<string, string> = {}) {
  return function apiVersion(_req: Request, res: Response, next: NextFunction): void {
    res.setHeader('API-Version', version);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    next();
  };
}
