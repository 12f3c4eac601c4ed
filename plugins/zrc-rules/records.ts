import { invalidParam, referenceError, validationError, type InvalidParam, type RequestContext, type ZaakType } from '../../src/plugin-api.js';
import type { Lookups } from './lookups.js';
import { unchangeable } from './zaak.js';

/** zrc-016, 018, 019, 020: the type a record names must be one of its zaak's zaaktype. */
const TYPE_OF_RECORD = {
  status: { field: 'statustype', kind: 'statustype', list: 'statustypen' },
  resultaat: { field: 'resultaattype', kind: 'resultaattype', list: 'resultaattypen' },
  rol: { field: 'roltype', kind: 'roltype', list: 'roltypen' },
  zaakeigenschap: { field: 'eigenschap', kind: 'eigenschap', list: 'eigenschappen' },
} as const satisfies Record<string, { field: string; kind: string; list: keyof ZaakType }>;

/** The rules of creating and changing the records of a zaak. */
export async function validateRecord(ctx: RequestContext, lookups: Lookups): Promise<void> {
  const { resource, action } = ctx.operation;
  if (action === 'destroy') return;
  const record = { ...ctx.current, ...ctx.data };
  const errors = statusDateErrors(ctx);
  const rule = TYPE_OF_RECORD[resource as keyof typeof TYPE_OF_RECORD];
  if (rule) {
    const url = String(record[rule.field]);
    const [, zaaktype] = await Promise.all([lookups.catalog(ctx, rule.kind, url, rule.field), lookups.zaaktypeOf(ctx, ctx.zaak!)]);
    if (!((zaaktype[rule.list] as string[] | undefined) ?? []).includes(url)) {
      errors.push({ name: 'nonFieldErrors', code: 'zaaktype-mismatch', reason: `Het ${rule.kind} hoort niet bij het zaaktype van de zaak.` });
    }
  }
  if (errors.length) throw validationError(errors);
  if (resource === 'zaakinformatieobject') await validateZaakinformatieobject(ctx, lookups);
}

/**
 * A status is not set before its zaak started: the date of `datumStatusGezet` as the client wrote it
 * (in its own offset, as the zaak's einddatum is taken from it) not before the zaak's `startdatum`.
 */
function statusDateErrors(ctx: RequestContext): InvalidParam[] {
  const { resource, action } = ctx.operation;
  if (resource !== 'status' || action !== 'create') return [];
  const date = String(ctx.data!.datumStatusGezet).slice(0, 10);
  const startdatum = ctx.zaak?.startdatum;
  if (typeof startdatum !== 'string' || date >= startdatum) return [];
  return [{ name: 'datumStatusGezet', code: 'before-startdatum', reason: `De status kan niet gezet zijn voor de startdatum van de zaak (${startdatum}).` }];
}

/** Inside the transaction, on the zaak as locked: the status date again (a concurrent update may have moved the startdatum). */
export function recheckRecord(ctx: RequestContext): void {
  const errors = statusDateErrors(ctx);
  if (errors.length) throw validationError(errors);
}

/** zrc-003, zrc-004 and zrc-017. */
async function validateZaakinformatieobject(ctx: RequestContext, lookups: Lookups): Promise<void> {
  const data = ctx.data!;
  const current = ctx.current;
  if (current) {
    // The relation itself is fixed once made; only its description changes.
    const changed = ['zaak', 'informatieobject'].filter((field) => field in data && data[field] !== current[field]);
    if (changed.length) throw validationError(changed.map(unchangeable));
    return;
  }
  const [document, zaaktype] = await Promise.all([
    lookups.informatieobject(ctx, String(data.informatieobject)).catch((error: unknown) => {
      throw referenceError('informatieobject', error);
    }),
    lookups.zaaktypeOf(ctx, ctx.zaak!),
  ]);
  if (!(zaaktype.informatieobjecttypen ?? []).includes(document.informatieobjecttype)) {
    throw invalidParam(
      'nonFieldErrors',
      'missing-zaaktype-informatieobjecttype-relation',
      'Het informatieobjecttype van het informatieobject hoort niet bij het zaaktype van de zaak.',
    );
  }
}
