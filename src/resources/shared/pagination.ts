import type { JsonSchema, QueryParameter } from '../../operation.js';
import type { RequestContext } from '../../plugin.js';
import { ProblemError } from '../../problem.js';

export const PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

export const paginationParameters: QueryParameter[] = [
  { name: 'page', description: 'Een pagina binnen de gepagineerde set resultaten (vanaf 1).', schema: { type: 'integer', minimum: 1 } },
  {
    name: 'pageSize',
    description: `Het aantal resultaten per pagina (standaard ${PAGE_SIZE}, maximaal ${MAX_PAGE_SIZE}).`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
];

export function paginatedSchema(items: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['count', 'results'],
    properties: {
      count: { type: 'integer', example: 123 },
      next: { type: 'string', format: 'uri', nullable: true, example: 'https://example.org/zaken/api/v1/zaken?page=3' },
      previous: { type: 'string', format: 'uri', nullable: true, example: 'https://example.org/zaken/api/v1/zaken?page=1' },
      results: { type: 'array', items },
    },
  };
}

export interface Page {
  number: number;
  size: number;
  offset: number;
}

export function pageOf(ctx: RequestContext): Page {
  const number = (ctx.query.page as number | undefined) ?? 1;
  const size = (ctx.query.pageSize as number | undefined) ?? PAGE_SIZE;
  // No table holds that many rows: past the last page, and an offset PostgreSQL would refuse.
  if (!Number.isSafeInteger(number * size)) throw new ProblemError('not_found', { detail: 'Ongeldige pagina.' });
  return { number, size, offset: (number - 1) * size };
}

/** `{count, next, previous, results}`; a page past the last one is a 404, as in the reference implementation. */
export function paginated(ctx: RequestContext, page: Page, count: number, results: unknown[]): Record<string, unknown> {
  const last = Math.max(1, Math.ceil(count / page.size));
  if (page.number > last) throw new ProblemError('not_found', { detail: 'Ongeldige pagina.' });
  const link = (n: number) => {
    const url = new URL(ctx.baseUrl + ctx.req.path);
    for (const [key, value] of new URL(ctx.req.originalUrl, 'http://x').searchParams) url.searchParams.append(key, value);
    url.searchParams.set('page', String(n));
    return url.toString();
  };
  return {
    count,
    next: page.number < last ? link(page.number + 1) : null,
    previous: page.number > 1 ? link(page.number - 1) : null,
    results,
  };
}
