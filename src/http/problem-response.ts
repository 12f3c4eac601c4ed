import type { Logger } from '../log.js';
import type { ResponseState } from '../plugin.js';
import { PluginError } from '../plugin-host.js';
import { ProblemError } from '../problem.js';
import { currentRequest } from '../ops/request-scope.js';
import { isStalePlan } from '../storage/types.js';

const PROBLEM_JSON = 'application/problem+json';
/** PostgreSQL gave up on a transaction to let a concurrent one through (deadlock, serialization): the client may retry. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * Also retryable: a transaction whose prepared statement a migration made stale on its connection
 * (that connection prepares it anew the next time).
 */
function retryable(error: unknown): boolean {
  const cause = error instanceof PluginError ? error.cause : error;
  return RETRYABLE.has(String((cause as { code?: unknown } | undefined)?.code)) || isStalePlan(cause);
}

/** The stack of an error and of the errors that caused it (a plugin's hook wraps what it threw). */
function stackOf(error: unknown): string {
  const lines: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    lines.push((depth ? 'Caused by: ' : '') + (cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)));
    if (!(cause instanceof Error)) break;
  }
  return lines.join('\n');
}

/**
 * The one serializer from any thrown value to a problem+json response. An error nobody foresaw is a
 * 500 that tells the client nothing but its `instance`, the id it is logged under with its stack.
 */
export function problemResponse(error: unknown, log: Logger, context: Record<string, unknown> = {}): ResponseState {
  let problem: ProblemError;
  if (error instanceof ProblemError) {
    problem = error;
  } else if (error instanceof URIError && (error as { status?: unknown }).status === 400) {
    // The router could not decode a path parameter (`/zaken/%zz`).
    problem = new ProblemError('parse_error', { detail: 'Het pad bevat een ongeldige %-codering.' });
  } else if (retryable(error)) {
    log.warn('transaction aborted by a concurrent one or a migration; answered 409', { ...context, error: String(error) });
    problem = new ProblemError('conflict', { detail: 'Een gelijktijdige wijziging kwam ertussen; probeer het opnieuw.' });
  } else {
    problem = new ProblemError('error');
  }
  const request = currentRequest();
  const body = problem.toBody(request?.errorCatalogue);
  // An operator finds the request's log lines by the id the client was given.
  const requestId = request?.id;
  if (problem.status >= 500 && requestId) body.requestId = requestId;
  if (problem.code === 'error') {
    const details: Record<string, unknown> = { ...context, instance: body.instance, error: stackOf(error) };
    if (error instanceof PluginError) Object.assign(details, { plugin: error.plugin, hook: error.hook });
    log.error('request failed', details);
  }
  return {
    status: problem.status,
    headers: { 'content-type': PROBLEM_JSON, ...(problem.headers ?? {}) },
    body,
  };
}
