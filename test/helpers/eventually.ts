/** Polls `check` until it returns without throwing, or rethrows its last error after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
