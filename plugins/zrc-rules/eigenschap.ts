import { validationError, type InvalidParam, type OpenApiFragment, type Operation, type RequestContext } from '../../src/plugin-api.js';
import type { Lookups } from './lookups.js';
import { kardinaliteitMismatch, maxOccurrences, waardeMismatches, warningHeader } from './specificatie.js';
import { ZAAK_WRITES, unchangeable } from './zaak.js';

/** What a zaakeigenschap whose `waarde` does not meet its eigenschap's specificatie gets. */
export type SpecificatieMode = 'warn' | 'reject';

/** The operations that write a zaakeigenschap's waarde: the ones that check it and may warn. */
export const ZAAKEIGENSCHAP_WRITES = ['zaakeigenschap_create', 'zaakeigenschap_update', 'zaakeigenschap_partial_update'] as const;

const WARNING = 'X-Warning';
const EXPOSE = 'Access-Control-Expose-Headers';
/** The contract's words (Zaken API 1.7.0+, zaakeigenschap_create). */
const WARNING_HEADER = {
  description:
    'Waarschuwing dat de zaakeigenschap niet voldoet aan de specificatie zoals gedefinieerd in de Catalogi API. De zaakeigenschap is wel opgeslagen, maar er kunnen problemen ontstaan bij het gebruik ervan.',
  schema: { type: 'string' },
};

const isZaakeigenschapWrite = (ctx: RequestContext) => ctx.operation.resource === 'zaakeigenschap' && ZAAK_WRITES.has(ctx.operation.action);

/** Names `name` in a comma-separated header list unless it is there already (case-insensitively). */
function withListed(list: string | undefined, name: string): string {
  const names = (list ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  return names.some((n) => n.toLowerCase() === name.toLowerCase()) ? names.join(', ') : [...names, name].join(', ');
}

/**
 * A zaakeigenschap's `waarde` against the `specificatie` of its eigenschap (Zaken API 1.7): formaat,
 * lengte and waardenverzameling when it is validated, kardinaliteit inside the write's transaction on
 * the zaak the core locked, so concurrent writes cannot both take the last place. `warn` stores it
 * and answers with `X-Warning`; `reject` answers 400 and stores nothing.
 */
export function eigenschapSpecificatie(mode: SpecificatieMode, lookups: Lookups) {
  const found = new WeakMap<RequestContext, { specificatie: unknown; mismatches: InvalidParam[] }>();

  function refuseWhenRejecting(mismatches: InvalidParam[]): void {
    if (mode === 'reject' && mismatches.length) throw validationError(mismatches);
  }

  return {
    /** Validation: only the `waarde` of a zaakeigenschap changes (the contract's update rule), and the value itself. */
    async validate(ctx: RequestContext): Promise<void> {
      if (!isZaakeigenschapWrite(ctx)) return;
      const data = ctx.data!;
      if (ctx.current && 'eigenschap' in data && data.eigenschap !== ctx.current.eigenschap) throw validationError([unchangeable('eigenschap')]);
      const record = { ...ctx.current, ...data };
      // Fetched already by zrc-018 in this request: the look-up is shared.
      const eigenschap = await lookups.catalog(ctx, 'eigenschap', String(record.eigenschap), 'eigenschap');
      const mismatches = waardeMismatches(eigenschap.specificatie, String(record.waarde ?? ''));
      refuseWhenRejecting(mismatches);
      found.set(ctx, { specificatie: eigenschap.specificatie, mismatches });
    },

    /** In the write's transaction: how many values of the eigenschap the zaak will have. */
    async beforeWrite(ctx: RequestContext): Promise<void> {
      const state = found.get(ctx);
      const max = state && maxOccurrences(state.specificatie);
      if (!state || max === undefined) return;
      const eigenschap = String({ ...ctx.current, ...ctx.data }.eigenschap);
      const records = await ctx.registry.zaken.records(ctx, 'zaakeigenschap', String(ctx.zaak!.url));
      const occurrences = 1 + records.filter((r) => r.eigenschap === eigenschap && r.url !== ctx.current?.url).length;
      if (occurrences <= max) return;
      const kardinaliteit = [kardinaliteitMismatch(max, occurrences)];
      refuseWhenRejecting(kardinaliteit);
      state.mismatches.push(...kardinaliteit);
    },

    /** A stored write's answer: the warning, and the header named to browsers (CORS) so scripts may read it. */
    onResponse(ctx: RequestContext): void {
      if (mode !== 'warn' || ctx.error) return;
      const headers = ctx.response.headers;
      const ownExpose = Object.keys(headers).find((name) => name.toLowerCase() === EXPOSE.toLowerCase());
      // The list another middleware (a CORS layer in front of the registry) set is kept.
      const before = ownExpose ? headers[ownExpose] : ctx.req.res?.getHeader(EXPOSE);
      if (ownExpose) delete headers[ownExpose];
      headers[EXPOSE] = withListed(before === undefined ? undefined : String(before), WARNING);
      const mismatches = found.get(ctx)?.mismatches ?? [];
      if (mismatches.length) headers[WARNING] = warningHeader(mismatches);
    },

    /** In `warn` mode the served document names `X-Warning` on the success answers of the writes, as the contract does for create. */
    openApi(operations: readonly Operation[]): OpenApiFragment {
      const paths: Record<string, Record<string, unknown>> = {};
      for (const operation of mode === 'warn' ? operations : []) {
        if (!(ZAAKEIGENSCHAP_WRITES as readonly string[]).includes(operation.id) || operation.documented === false) continue;
        (paths[operation.path] ??= {})[operation.method] = {
          responses: { [String(operation.openapi.successStatus)]: { headers: { [WARNING]: WARNING_HEADER } } },
        };
      }
      return { paths };
    },
  };
}
