import { ProblemError, invalidParam } from '../problem.js';
import { DeliveryError } from '../outbox/delivery-error.js';
import { RemoteError } from './fetch.js';

/**
 * Why a remote look-up failed, in the API's language (Dutch); the error's own message stays English
 * for the logs, except `invalid-resource`, whose message already names what the resource lacks.
 */
export function remoteReason(error: RemoteError): string {
  switch (error.reason) {
    case 'not-allowed':
      return `${error.url}: deze host is niet toegestaan.`;
    case 'timeout':
      return `${error.url} antwoordde niet op tijd.`;
    case 'network':
      return `${error.url} is niet bereikbaar.`;
    case 'too-large':
      return `Het antwoord van ${error.url} is te groot.`;
    case 'status':
      return error.status === 404 ? `${error.url} bestaat niet.` : `${error.url} antwoordde met status ${error.status ?? 'onbekend'}.`;
    case 'not-json':
      return `${error.url} antwoordde niet met JSON.`;
    case 'invalid-resource':
      return error.message;
  }
}

/** Answered 200 but not with the resource expected (vng-api-common's `invalid-resource`); the rest could not be fetched (`bad-url`). */
const FETCHED_BUT_WRONG: ReadonlySet<RemoteError['reason']> = new Set(['invalid-resource', 'not-json']);

/**
 * A failed look-up of a URL the client sent in `field`: 400 `invalid-resource` when it answered but
 * is not that kind of resource, else `bad-url` (not 200, host not allowed, timeout). Other errors pass.
 */
export function referenceError(field: string, error: unknown): unknown {
  if (!(error instanceof RemoteError)) return error;
  return invalidParam(field, FETCHED_BUT_WRONG.has(error.reason) ? 'invalid-resource' : 'bad-url', remoteReason(error));
}

/**
 * A look-up of something the registry relies on but the client did not send (a stored zaak's
 * zaaktype, its documents, its besluiten): failing is the other registry's failure, `502 bad_gateway`.
 */
export async function upstream<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    throw new ProblemError('bad_gateway', { detail: `${what} kan niet worden opgehaald: ${remoteReason(error)}` });
  }
}

/**
 * A failed call of an outbox delivery: a refusal the other registry will repeat (4xx other than 408
 * and 429: a payload it rejects, a resource it no longer has) fails the delivery at once; outages,
 * timeouts and 5xx are retried (not before the `Retry-After` of a 429 or 503).
 */
export function deliveryFailure(error: unknown): unknown {
  if (!(error instanceof RemoteError)) return error;
  const status = error.status ?? 0;
  const permanent = error.reason === 'not-allowed' || (error.reason === 'status' && status >= 400 && status < 500 && status !== 408 && status !== 429);
  return new DeliveryError(error.message, { permanent, retryAfterMs: error.retryAfterMs, cause: error });
}
