import { Temporal } from 'temporal-polyfill';
import { invalidParam, upstream, type RequestContext } from '../../src/plugin-api.js';

/** `brondatumArchiefprocedure` of a resultaattype (Catalogi API). */
export interface BrondatumArchiefprocedure {
  afleidingswijze?: string;
  datumkenmerk?: string;
  objecttype?: string;
  procestermijn?: string | null;
}

/** `date` + an ISO 8601 duration, calendar-correct (P1M on 31 January is the last day of February). */
export function addDuration(date: string, duration: string): string {
  return Temporal.PlainDate.from(date).add(Temporal.Duration.from(duration)).toString();
}

/** The latest of some dates (`YYYY-MM-DD`), or undefined when there are none. */
function latest(dates: (string | undefined)[]): string | undefined {
  const present = dates.filter((d): d is string => !!d).sort(Temporal.PlainDate.compare);
  return present.at(-1);
}

/**
 * A date from a value of a property or an object, in the forms Open Zaak accepts: `2024-03-01`,
 * unpadded `2024-3-1`, `20240301`, or a date-time (its date as written).
 */
export function parseDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = /^(\d{4})(\d{2})(\d{2})$/.exec(value) ?? /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?$/.exec(value);
  if (!parts) return undefined;
  try {
    const [year, month, day] = parts.slice(1).map(Number);
    return Temporal.PlainDate.from({ year, month, day }, { overflow: 'reject' }).toString();
  } catch {
    return undefined;
  }
}

/** A value at a dotted path (`record.data.einddatum`) of a fetched object. */
function at(object: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), object);
}

/** A resource another registry holds; failing to fetch it means the date cannot be derived (502). */
const fetchRemote = (ctx: RequestContext, url: string) =>
  upstream('Een bron voor de brondatum', () => ctx.registry.remote.getJson<Record<string, unknown>>(url));

const bad = (reason: string) => invalidParam('nonFieldErrors', 'archiefactiedatum-error', reason);

/**
 * The brondatum (base date of the archive action term) of a closing zaak by the resultaattype's
 * `afleidingswijze`; undefined when it cannot be found (then no date is set).
 */
export async function brondatum(
  ctx: RequestContext,
  zaak: Record<string, unknown>,
  einddatum: string,
  procedure: BrondatumArchiefprocedure,
): Promise<string | undefined> {
  const zaken = ctx.registry.zaken;
  const uuid = String(zaak.uuid);
  switch (procedure.afleidingswijze) {
    case 'afgehandeld':
      return einddatum;
    case 'termijn':
      return procedure.procestermijn ? addDuration(einddatum, procedure.procestermijn) : undefined;
    case 'hoofdzaak': {
      if (!zaak.hoofdzaak) return undefined;
      const hoofdzaak = await zaken.find(ctx, String(zaak.hoofdzaak));
      return (hoofdzaak?.einddatum as string | null) ?? undefined;
    }
    case 'eigenschap': {
      const eigenschap = (await zaken.records(ctx, 'zaakeigenschap', uuid)).find((e) => e.naam === procedure.datumkenmerk);
      if (!eigenschap) return undefined;
      const date = parseDate(eigenschap.waarde);
      if (!date) throw bad(`De waarde van eigenschap "${procedure.datumkenmerk}" ("${String(eigenschap.waarde)}") is geen datum.`);
      return date;
    }
    case 'zaakobject': {
      // The object is the one its URL names, or the data registered with it (objectIdentificatie), as Open Zaak reads it.
      const objecten = (await zaken.records(ctx, 'zaakobject', uuid)).filter((o) => o.objectType === procedure.objecttype);
      const resolved = await Promise.all(objecten.map((o) => (o.object ? fetchRemote(ctx, String(o.object)) : o.objectIdentificatie)));
      return latest(resolved.map((object) => parseDate(at(object, procedure.datumkenmerk ?? ''))));
    }
    case 'gerelateerde_zaak': {
      const urls = ((zaak.relevanteAndereZaken as { url: string }[]) ?? []).map((r) => r.url);
      const einddata: unknown[] = [];
      // One at a time: local look-ups share the transaction's connection.
      for (const url of urls) {
        const related = url.startsWith(`${ctx.baseUrl}/`) ? await zaken.find(ctx, url) : await fetchRemote(ctx, url);
        einddata.push(related?.einddatum);
      }
      return latest(einddata.map(parseDate));
    }
    case 'ingangsdatum_besluit':
    case 'vervaldatum_besluit': {
      const field = procedure.afleidingswijze === 'ingangsdatum_besluit' ? 'ingangsdatum' : 'vervaldatum';
      const besluiten = await zaken.records(ctx, 'zaakbesluit', uuid);
      const fetched = await Promise.all(besluiten.map((b) => fetchRemote(ctx, String(b.besluit))));
      return latest(fetched.map((besluit) => parseDate(besluit[field])));
    }
    default:
      // ander_datumkenmerk (set by hand), or none given.
      return undefined;
  }
}
