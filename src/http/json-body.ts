import express, { type NextFunction, type Request, type Response } from 'express';
import { ProblemError } from '../problem.js';

const parseJson = express.json({ limit: '1mb', type: ['application/json', 'application/*+json'], strict: false });
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Request bodies are JSON: any other content type with a body is a 415; malformed JSON a 400
 * `parse_error`; more than 1 MB a 413.
 */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && !req.is(['application/json', 'application/*+json'])) {
    next(new ProblemError('unsupported_media_type', { detail: `Mediatype "${req.headers['content-type'] ?? ''}" wordt niet ondersteund; gebruik application/json.` }));
    return;
  }
  parseJson(req, res, (error?: unknown) => {
    if (!error) return next();
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large') return next(new ProblemError('payload_too_large'));
    if (type === 'entity.parse.failed') return next(new ProblemError('parse_error', { detail: 'De inhoud van het verzoek is geen geldige JSON.' }));
    next(error);
  });
}
