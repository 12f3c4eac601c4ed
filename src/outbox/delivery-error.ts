/**
 * Throw it from a handler when retrying cannot help (the target refuses the payload): the delivery fails
 * at once; or, with `retryAfterMs`, when the target said when to try again (a 429's `Retry-After`): the
 * next attempt waits at least that long.
 */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { permanent?: boolean; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}
