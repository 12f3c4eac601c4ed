/** Who is calling and what an authorization is decided on. */

/** One authorization of an application for one zaaktype (the Autorisaties API shape, component `zrc`). */
export interface ZaakAuthorization {
  zaaktype: string;
  scopes: string[];
  maxVertrouwelijkheidaanduiding: string;
}

/** Who is calling, as established by an `authenticate` hook. */
export interface Principal {
  clientId: string;
  /** The application's label (`applicatieWeergave` in the audit trail). */
  applicationLabel?: string;
  userId?: string;
  userRepresentation?: string;
  /** `heeftAlleAutorisaties`: every operation on every zaak. */
  allAuthorizations: boolean;
  authorizations: ZaakAuthorization[];
  /** Which mechanism authenticated the request (`development`, `zgw-jwt`, `oauth`, ...). */
  method: string;
}

/** What an authorization is decided on: the zaak's type and confidentiality. */
export interface AccessSubject {
  zaaktype: string;
  vertrouwelijkheidaanduiding: string;
}
