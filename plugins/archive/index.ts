import { checkOptions, upstream, type Plugin, type ZaakTransition } from '../../src/plugin-api.js';
import { addDuration, brondatum, type BrondatumArchiefprocedure } from './derivation.js';

/**
 * zrc-021: when a zaak closes, derive `archiefnominatie`, `archiefactiedatum` and
 * `startdatumBewaartermijn` from its resultaat's resultaattype, in the closing transaction. Values
 * the zaak already has (set by a client during handling) are kept.
 */
export function archive(options: Record<string, never> = {}): Plugin {
  // No options: one passed from JavaScript is a mistake worth naming.
  checkOptions('archive', { type: 'object', additionalProperties: false }, options);
  return {
    name: 'archive',
    async zaakClosing(transition: ZaakTransition) {
      const { ctx, zaak, changes } = transition;
      const [resultaat] = await ctx.registry.zaken.records(ctx, 'resultaat', String(zaak.uuid));
      if (!resultaat) return;
      const resultaattype = await upstream('Het resultaattype', () => ctx.registry.catalog.get('resultaattype', String(resultaat.resultaattype)));
      const nominatie = (zaak.archiefnominatie as string | null) || (resultaattype.archiefnominatie as string | undefined) || null;
      if (!zaak.archiefnominatie && nominatie) changes.archiefnominatie = nominatie;

      const procedure = (resultaattype.brondatumArchiefprocedure ?? {}) as BrondatumArchiefprocedure;
      const base = await brondatum(ctx, zaak, String(changes.einddatum), procedure);
      const termijn = resultaattype.archiefactietermijn as string | null | undefined;
      if (base && termijn && !zaak.archiefactiedatum) changes.archiefactiedatum = addDuration(base, termijn);
      // The retention term starts at the brondatum only for zaken to be destroyed; kept forever, it starts at closing.
      if (base && nominatie === 'vernietigen' && !zaak.startdatumBewaartermijn) changes.startdatumBewaartermijn = base;
    },
    // zrc-rules clears einddatum and the archive fields; the retention start goes with them, handling resumes.
    zaakReopening({ changes }: ZaakTransition) {
      changes.startdatumBewaartermijn = null;
    },
  };
}
