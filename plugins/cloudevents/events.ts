import { isDeepStrictEqual } from 'node:util';
import { isPublishedOnKanaalZaken, KANAAL_ZAKEN_KENMERKEN as KENMERKEN, type ResourceChange } from '../../src/plugin-api.js';

/** The reverse-DNS prefix of every event type (NL GOV profile; Open Zaak's and Open Notificaties' names). */
export const TYPE_PREFIX = 'nl.overheid.zaken.';

/** An event before its envelope: what the plugin decides from a change. */
export interface EventDraft {
  type: string;
  /** The zaak it is about: its URL (the ordering key and `dataref`). */
  zaak: string;
  subject: string;
  data: Record<string, unknown>;
}

/**
 * The handelingen (the `handelingen` plugin's operations, read from `change.ctx.partOf`) and the event
 * each gives, as Open Zaak names them. Known by operation id only: this plugin does not need that one.
 */
export const HANDELING_TYPES: Readonly<Record<string, string>> = {
  registreerzaak_create: 'zaak-geregistreerd',
  zaakopschorten: 'zaak-opgeschort',
  zaakverlengen: 'zaak-verlengd',
  zaakbijwerken: 'zaak-bijgewerkt',
  zaakafsluiten: 'zaak-afgesloten',
};

/** Records whose create, update or destroy gives `zaak-gemuteerd` (Open Zaak 1.28+); `status` and `zaakbesluit` are create-only or create/destroy. */
const MUTATING_RECORDS = new Set(['status', 'resultaat', 'zaakinformatieobject', 'zaakobject', 'zaakbesluit']);

const uuidOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** The `data` of Open Zaak's zaak events; every key always present (an empty value fails a filter closed). */
export function zaakData(zaak: Record<string, unknown>, catalogus: string, handeling: boolean): Record<string, unknown> {
  return {
    bronorganisatie: text(zaak.bronorganisatie),
    ...(handeling ? { verantwoordelijkeOrganisatie: text(zaak.verantwoordelijkeOrganisatie) } : {}),
    zaaktype: text(zaak.zaaktype),
    'zaaktype.catalogus': catalogus,
    vertrouwelijkheidaanduiding: text(zaak.vertrouwelijkheidaanduiding),
  };
}

/** What a change means in the `mijn-overheid` family, before deduplication. */
export type MijnOverheidTrigger = { kind: 'gemuteerd' | 'geopend' | 'verwijderd'; zaak: string } | undefined;

/** A zaak PATCH whose body has only `laatstGeopend`: viewing metadata, `zaak-geopend`. */
export function onlyOpened(change: ResourceChange): boolean {
  const body = change.ctx?.body;
  return change.action === 'partial_update' && !!body && Object.keys(body).length === 1 && 'laatstGeopend' in body;
}

/** The `mijn-overheid` event a change triggers (§6.2 of the design): none, `zaak-gemuteerd`, `zaak-geopend` or `zaak-verwijderd`. */
export function mijnOverheidTrigger(change: ResourceChange, extraResources: ReadonlySet<string>, laatstGeopend: boolean): MijnOverheidTrigger {
  if (change.resource === 'zaak') {
    // The zaak and each deelzaak removed with it, whatever the source.
    if (change.action === 'destroy') return { kind: 'verwijderd', zaak: change.resourceUrl };
    // A zaak is "complete" at its first status (Open Zaak): its creation gives nothing.
    if (change.action === 'create') return undefined;
    if (laatstGeopend && onlyOpened(change)) return { kind: 'geopend', zaak: change.resourceUrl };
    // A write that changed nothing announces nothing (Open Zaak would).
    return isDeepStrictEqual(change.before, change.after) ? undefined : { kind: 'gemuteerd', zaak: change.resourceUrl };
  }
  if (change.source === 'cascade') return undefined;
  if (MUTATING_RECORDS.has(change.resource) || extraResources.has(change.resource)) return { kind: 'gemuteerd', zaak: change.hoofdObject };
  return undefined;
}

/** The handeling a change is part of, as its event type (without prefix); undefined outside one. */
export function handelingOf(change: ResourceChange): string | undefined {
  const id = change.ctx?.partOf?.operation.id;
  return id === undefined ? undefined : HANDELING_TYPES[id];
}

/** The `nrc` event of a change: the classic notification as `data`, its kenmerken also at the top; undefined when none is published. */
export function nrcEvent(change: ResourceChange): EventDraft | undefined {
  if (!isPublishedOnKanaalZaken(change)) return undefined;
  const kenmerken = Object.fromEntries(KENMERKEN.map((k) => [k, text(change.zaak[k])]));
  return {
    type: `${TYPE_PREFIX}${change.resource}.${change.action}`,
    zaak: change.hoofdObject,
    subject: uuidOf(change.resourceUrl),
    data: {
      kanaal: 'zaken',
      hoofdObject: change.hoofdObject,
      resource: change.resource,
      resourceUrl: change.resourceUrl,
      actie: change.action,
      aanmaakdatum: new Date().toISOString(),
      kenmerken,
      ...kenmerken,
    },
  };
}

export const zaakSubject = uuidOf;
