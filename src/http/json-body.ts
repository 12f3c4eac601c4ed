import express, { type NextFunction, type Request, type Response } from 'express';
import { ProblemError, invalidParam } from '../problem.js';
import { MAX_JSON_DEPTH, tooDeep } from '../schema/input-limits.js';

const MAX_BODY_BYTES = 1024 * 1024;
const parseJson = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'], strict: false });
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The bytes of each request body as received (before content decoding), for `ctx.rawBody`. */
const receivedBodies = new WeakMap<Request, Buffer[]>();

/** The request body exactly as it came over the wire, or undefined for a request without one. */
export function receivedBody(req: Request): Buffer | undefined {
  const chunks = receivedBodies.get(req);
  return chunks ? Buffer.concat(chunks) : undefined;
}

/** What body-parser reports (an http-errors error): a status meant for the client and a `type`. */
interface BodyError {
  status?: number;
  type?: string;
  charset?: string;
  encoding?: string;
}

/** A body-parser failure as the problem of the same status. */
function bodyProblem(error: BodyError): ProblemError | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return new ProblemError('payload_too_large');
    case 'entity.parse.failed':
      return new ProblemError('parse_error', { detail: 'De inhoud van het verzoek is geen geldige JSON.' });
    case 'charset.unsupported':
      return new ProblemError('unsupported_media_type', { detail: `Tekenset "${error.charset ?? ''}" wordt niet ondersteund; gebruik utf-8.` });
    case 'encoding.unsupported':
      return new ProblemError('unsupported_media_type', { detail: `Content-Encoding "${error.encoding ?? ''}" wordt niet ondersteund; gebruik gzip, deflate, br of geen.` });
  }
  // A body that cannot be read as sent (not the gzip it claims to be, a length that does not match, aborted).
  if (error.status !== undefined && error.status >= 400 && error.status < 500) {
    return new ProblemError('parse_error', { detail: 'De inhoud van het verzoek kan niet worden gelezen zoals die is aangeboden.' });
  }
  return undefined;
}

/**
 * Request bodies are JSON: any other content type with a body is a 415; malformed JSON a 400
 * `parse_error`; more than 1 MB a 413; nested deeper than `MAX_JSON_DEPTH` a 400, checked here,
 * before anything walks the body recursively (ajv, a plugin) and could run out of stack.
 */
export function jsonBody(req: Request, res: Response, next: NextFunction): void {
  // No body announced at all (most reads): nothing for body-parser to do either.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (BODY_METHODS.has(req.method) && hasBody && !req.is(['application/json', 'application/*+json'])) {
    next(new ProblemError('unsupported_media_type', { detail: `Mediatype "${req.headers['content-type'] ?? ''}" wordt niet ondersteund; gebruik application/json.` }));
    return;
  }
  if (hasBody && req.is(['application/json', 'application/*+json'])) {
    // Listening beside body-parser sees the same chunks, still content-encoded: a body signature covers those.
    const chunks: Buffer[] = [];
    let received = 0;
    receivedBodies.set(req, chunks);
    const tap = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
      // Over the limit body-parser answers 413: keep no more of it.
      if (received > MAX_BODY_BYTES) {
        req.off('data', tap);
        receivedBodies.delete(req);
      }
    };
    req.on('data', tap);
  }
  parseJson(req, res, (error?: unknown) => {
    if (error) return next(bodyProblem(error as BodyError) ?? error);
    const deepest = tooDeep(req.body, MAX_JSON_DEPTH);
    if (deepest) {
      return next(invalidParam(deepest.join('.') || 'nonFieldErrors', 'max_depth', `De inhoud is dieper genest dan ${MAX_JSON_DEPTH} niveaus.`));
    }
    next();
  });
}
