import type { Request } from 'express';

/**
 * The query string as name → value, a repeated name counting once with its last value (as Django does).
 * Read from the URL itself rather than `req.query`, whose shape depends on the host app's Express version
 * and `query parser` setting (Express 4 nests `a[b]=c` into objects).
 */
export function queryParameters(req: Request): Map<string, string> {
  const url = req.originalUrl ?? req.url;
  const start = url.indexOf('?');
  return new Map(start === -1 ? [] : new URLSearchParams(url.slice(start + 1)));
}
