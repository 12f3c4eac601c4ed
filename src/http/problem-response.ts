import type { Logger } from '../log.js';
import type { ResponseState } from '../plugin.js';
import { PluginError } from '../plugin-host.js';
import { ProblemError } from '../problem.js';

const PROBLEM_JSON = 'application/problem+json';

/** The one serializer from any thrown value to a problem+json response; unknown errors are a logged 500. */
export function problemResponse(error: unknown, log: Logger, context: Record<string, unknown> = {}): ResponseState {
  let problem: ProblemError;
  if (error instanceof ProblemError) {
    problem = error;
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
