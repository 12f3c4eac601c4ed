/** Throw it from a handler when retrying cannot help (the target refuses the payload): the delivery fails at once. */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  constructor(message: string, options: { permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent ?? false;
  }
}
