import type { ZaakRecordKind } from '../../src/plugin-api.js';

/** A resource of this registry that can be expanded: a zaak or one of its records. */
export type LocalKind = 'zaak' | Exclude<ZaakRecordKind, 'klantcontact' | 'zaakcontactmoment' | 'zaakverzoek' | 'zaaknotitie'>;

/**
 * What an attribute of a resource of this registry links to: a zaak or a record (loaded from
 * storage), or `remote`: a resource elsewhere (Catalogi, Documenten, Besluiten API, ...), fetched by
 * its URL, whose own attributes are only known once it is fetched.
 */
export interface Relation {
  target: LocalKind | 'remote';
  /** The attribute holds a list of URLs (or, for relevanteAndereZaken, of `{url}`). */
  many: boolean;
}

const one = (target: Relation['target']): Relation => ({ target, many: false });
const many = (target: Relation['target']): Relation => ({ target, many: true });

/** Per resource of this registry, the attributes its 1.8.0 `*Embedded` schema lets expand. */
export const RELATIONS: Record<LocalKind, Record<string, Relation>> = {
  zaak: {
    zaaktype: one('remote'),
    status: one('status'),
    resultaat: one('resultaat'),
    rollen: many('rol'),
    hoofdzaak: one('zaak'),
    deelzaken: many('zaak'),
    relevanteAndereZaken: many('zaak'),
    eigenschappen: many('zaakeigenschap'),
    zaakobjecten: many('zaakobject'),
    zaakinformatieobjecten: many('zaakinformatieobject'),
    communicatiekanaal: one('remote'),
    selectielijstklasse: one('remote'),
    productenOfDiensten: many('remote'),
  },
  status: { statustype: one('remote'), zaak: one('zaak'), gezetdoor: one('rol'), zaakinformatieobjecten: many('zaakinformatieobject') },
  resultaat: { resultaattype: one('remote'), zaak: one('zaak') },
  rol: { roltype: one('remote'), zaak: one('zaak'), statussen: many('status'), betrokkene: one('remote') },
  zaakeigenschap: { eigenschap: one('remote'), zaak: one('zaak') },
  zaakobject: { zaak: one('zaak'), object: one('remote'), zaakobjecttype: one('remote') },
  zaakinformatieobject: { zaak: one('zaak'), status: one('status'), informatieobject: one('remote') },
  zaakbesluit: { besluit: one('remote') },
};

/** The operations that take `expand`, with the kind of resource they answer. */
export const EXPANDABLE_OPERATIONS: Readonly<Record<string, LocalKind>> = {
  zaak_list: 'zaak',
  zaak_retrieve: 'zaak',
  zaak__zoek: 'zaak',
  resultaat_list: 'resultaat',
  resultaat_retrieve: 'resultaat',
  rol_list: 'rol',
  rol_retrieve: 'rol',
  status_list: 'status',
  status_retrieve: 'status',
  zaakinformatieobject_list: 'zaakinformatieobject',
  zaakinformatieobject_retrieve: 'zaakinformatieobject',
  zaakobject_list: 'zaakobject',
  zaakobject_retrieve: 'zaakobject',
  zaakeigenschap_list: 'zaakeigenschap',
  zaakeigenschap_retrieve: 'zaakeigenschap',
  zaakbesluit_list: 'zaakbesluit',
  zaakbesluit_retrieve: 'zaakbesluit',
};

/** The collections of this registry's top-level records, by their path segment. */
const RECORD_COLLECTIONS: Readonly<Record<string, LocalKind>> = {
  statussen: 'status',
  resultaten: 'resultaat',
  rollen: 'rol',
  zaakobjecten: 'zaakobject',
  zaakinformatieobjecten: 'zaakinformatieobject',
};
/** Records nested under their zaak (`/zaken/{zaak_uuid}/<segment>/{uuid}`). */
const NESTED_COLLECTIONS: Readonly<Record<string, LocalKind>> = { zaakeigenschappen: 'zaakeigenschap', besluiten: 'zaakbesluit' };

/** A URL of this registry: what it is, and its zaak when the URL names it. */
export interface LocalUrl {
  kind: LocalKind;
  /** The zaak's uuid: the zaak's own, or the one a nested record's URL names. */
  zaak?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a URL under this registry's base URL points at; `undefined` for another host, `null` for a URL
 * of this registry that is no expandable resource (the audit trail, an unknown path).
 */
export function localUrl(baseUrl: string, url: string): LocalUrl | null | undefined {
  if (!url.startsWith(`${baseUrl}/`)) return undefined;
  const segments = url.slice(baseUrl.length + 1).split(/[?#]/)[0].split('/');
  const [collection, uuid, nested, nestedUuid] = segments;
  if (!UUID.test(uuid ?? '')) return null;
  if (collection === 'zaken' && segments.length === 2) return { kind: 'zaak', zaak: uuid.toLowerCase() };
  if (collection === 'zaken' && segments.length === 4 && NESTED_COLLECTIONS[nested] && UUID.test(nestedUuid)) return { kind: NESTED_COLLECTIONS[nested], zaak: uuid.toLowerCase() };
  if (segments.length === 2 && RECORD_COLLECTIONS[collection]) return { kind: RECORD_COLLECTIONS[collection] };
  return null;
}

/** Catalogi API collections the catalog client reads (and caches), by their path segment. */
const CATALOG_COLLECTIONS = {
  zaaktypen: 'zaaktype',
  statustypen: 'statustype',
  resultaattypen: 'resultaattype',
  roltypen: 'roltype',
  eigenschappen: 'eigenschap',
  informatieobjecttypen: 'informatieobjecttype',
} as const;
export type CatalogCollectionKind = (typeof CATALOG_COLLECTIONS)[keyof typeof CATALOG_COLLECTIONS];

/** The catalog kind of a Catalogi API URL (`…/statustypen/{uuid}`), from the collection it is in. */
export function catalogKindOf(url: string): CatalogCollectionKind | undefined {
  let segments: string[];
  try {
    segments = new URL(url).pathname.split('/').filter(Boolean);
  } catch {
    return undefined;
  }
  const collection = segments.at(-2) ?? '';
  return Object.hasOwn(CATALOG_COLLECTIONS, collection) ? CATALOG_COLLECTIONS[collection as keyof typeof CATALOG_COLLECTIONS] : undefined;
}
