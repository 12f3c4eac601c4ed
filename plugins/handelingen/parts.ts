import { ProblemError, type PartInput, type RequestContext } from '../../src/plugin-api.js';

/**
 * Runs one part of a handeling (`registry.operations.run`): the operation a separate call would use,
 * in the handeling's transaction. Its validation errors are named under the part (`status.statustype`,
 * `rollen.2.betrokkeneType`); other problems (403, 404, 409, 502) pass as they are. Answers what
 * the part wrote, as the separate call answers it.
 */
export async function runPart(ctx: RequestContext, part: string, operationId: string, input: PartInput): Promise<Record<string, unknown>> {
  try {
    return (await ctx.registry.operations.run(ctx, operationId, input)).result ?? {};
  } catch (error) {
    throw underPart(error, part);
  }
}

function underPart(error: unknown, part: string): unknown {
  if (!(error instanceof ProblemError) || !error.invalidParams?.length) return error;
  const invalidParams = error.invalidParams.map((param) => ({ ...param, name: `${part}.${param.name}` }));
  return new ProblemError(error.code, {
    invalidParams,
    detail: invalidParams.map((param) => `${param.name}: ${param.reason}`).join('; '),
    headers: error.headers,
    cause: error,
  });
}

/** A part's body with the back-reference to the zaak that the handeling fills in. */
export const withZaak = (body: unknown, zaakUrl: string): Record<string, unknown> => ({ ...(body as Record<string, unknown>), zaak: zaakUrl });
