import type { Logger } from '../log.js';
import type { ResponseState } from '../plugin.js';
import { PluginError } from '../plugin-host.js';
import { ProblemError } from '../problem.js';

const PROBLEM_JSON = 'application/problem+json';
/** PostgreSQL gave up on a transaction to let a concurrent one through (deadlock, serialization): the client may retry. */
const RETRYABLE = new Set(['40P01', '40001']);

function retryable(error: unknown): boolean {
  const cause = error instanceof PluginError ? error.cause : error;
  return RETRYABLE.has(String((cause as { code?: unknown } | undefined)?.code));
}

/** The one serializer from any thrown value to a problem+json response; unknown errors are a logged 500. */
export function problemResponse(error: unknown, log: Logger, context: Record<string, unknown> = {}): ResponseState {
  let problem: ProblemError;
  if (error instanceof ProblemError) {
    problem = error;
  } else if (retryable(error)) {
    log.warn('transaction aborted by a concurrent one; answered 409', { ...context, error: String(error) });
    problem = new ProblemError('conflict', { detail: 'Een gelijktijdige wijziging kwam ertussen; probeer het opnieuw.' });
  } else {
    const details: Record<string, unknown> = { ...context, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    if (error instanceof PluginError) Object.assign(details, { plugin: error.plugin, hook: error.hook });
    log.error('request failed', details);
    problem = new ProblemError('error');
  }
  const body = problem.toBody();
  return {
    status: problem.status,
    headers: { 'content-type': PROBLEM_JSON, ...(problem.headers ?? {}) },
    body,
  };
}
