/** A resource of the Catalogi API; only the fields the registry reads are typed. */
export interface CatalogObject {
  url: string;
  [field: string]: unknown;
}

export interface ZaakType extends CatalogObject {
  identificatie?: string;
  omschrijving?: string;
  vertrouwelijkheidaanduiding: string;
  /** True while the zaaktype is not published. */
  concept?: boolean;
  productenOfDiensten?: string[];
  statustypen: string[];
  resultaattypen: string[];
  roltypen: string[];
  eigenschappen: string[];
  informatieobjecttypen: string[];
}

export interface StatusType extends CatalogObject {
  zaaktype: string;
  volgnummer: number;
}

/** The kinds of catalog resources and the fields each must have to count as one. */
export const CATALOG_KINDS = {
  zaaktype: ['url', 'vertrouwelijkheidaanduiding', 'statustypen'],
  statustype: ['url', 'zaaktype', 'volgnummer'],
  resultaattype: ['url', 'zaaktype'],
  roltype: ['url', 'zaaktype', 'omschrijvingGeneriek'],
  eigenschap: ['url', 'zaaktype', 'naam'],
  informatieobjecttype: ['url', 'omschrijving', 'vertrouwelijkheidaanduiding'],
} as const;
export type CatalogKind = keyof typeof CATALOG_KINDS;

/** The zaaktype field that lists each kind's URLs. */
export const ZAAKTYPE_LIST_FIELD = {
  statustype: 'statustypen',
  resultaattype: 'resultaattypen',
  roltype: 'roltypen',
  eigenschap: 'eigenschappen',
  informatieobjecttype: 'informatieobjecttypen',
} as const satisfies Record<Exclude<CatalogKind, 'zaaktype'>, keyof ZaakType>;

/**
 * Where the registry looks up types. Lookups throw `RemoteError`: `status` (the URL does not resolve
 * to 200), `invalid-resource` (it is not a resource of that kind), `not-allowed`, `timeout`, ...
 */
export interface CatalogClient {
  zaaktype(url: string): Promise<ZaakType>;
  /** One catalog resource of the given kind, by URL. */
  get(kind: Exclude<CatalogKind, 'zaaktype'>, url: string): Promise<CatalogObject>;
  /** All resources of a kind that belong to a zaaktype (its statustypen, roltypen, ...). */
  listFor(kind: Exclude<CatalogKind, 'zaaktype'>, zaaktype: ZaakType): Promise<CatalogObject[]>;
}
