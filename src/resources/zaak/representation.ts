import { BETALINGSINDICATIE_WEERGAVE } from '../shared/enums.js';
import { iso } from '../shared/references.js';
import type { ZaakRow } from './columns.js';
import { noRelations, type ZaakRelations } from './relations.js';

/** The Zaak as clients receive it, fields in the order of the standard; nested groups always nested. */
export function renderZaak(row: ZaakRow, relations: ZaakRelations, baseUrl: string): Record<string, unknown> {
  const zaakUrl = (uuid: string) => `${baseUrl}/zaken/${uuid}`;
  return {
    url: zaakUrl(row.uuid),
    uuid: row.uuid,
    identificatie: row.identificatie,
    bronorganisatie: row.bronorganisatie,
    omschrijving: row.omschrijving,
    toelichting: row.toelichting,
    zaaktype: row.zaaktype,
    registratiedatum: row.registratiedatum,
    verantwoordelijkeOrganisatie: row.verantwoordelijke_organisatie,
    startdatum: row.startdatum,
    einddatum: row.einddatum ?? null,
    einddatumGepland: row.einddatum_gepland ?? null,
    uiterlijkeEinddatumAfdoening: row.uiterlijke_einddatum_afdoening ?? null,
    publicatiedatum: row.publicatiedatum ?? null,
    communicatiekanaal: row.communicatiekanaal,
    productenOfDiensten: row.producten_of_diensten,
    vertrouwelijkheidaanduiding: row.vertrouwelijkheidaanduiding,
    betalingsindicatie: row.betalingsindicatie,
    betalingsindicatieWeergave: BETALINGSINDICATIE_WEERGAVE[row.betalingsindicatie as string] ?? '',
    laatsteBetaaldatum: iso(row.laatste_betaaldatum),
    zaakgeometrie: row.zaakgeometrie ?? null,
    verlenging: { reden: row.verlenging_reden, duur: row.verlenging_duur ?? null },
    opschorting: { indicatie: row.opschorting_indicatie, reden: row.opschorting_reden },
    selectielijstklasse: row.selectielijstklasse,
    hoofdzaak: row.hoofdzaak_uuid ? zaakUrl(row.hoofdzaak_uuid) : null,
    deelzaken: (relations.deelzaken.get(row.id) ?? []).map(zaakUrl),
    relevanteAndereZaken: row.relevante_andere_zaken,
    eigenschappen: (relations.eigenschappen.get(row.id) ?? []).map((uuid) => `${zaakUrl(row.uuid)}/zaakeigenschappen/${uuid}`),
    rollen: (relations.rollen.get(row.id) ?? []).map((uuid) => `${baseUrl}/rollen/${uuid}`),
    status: relations.status.has(row.id) ? `${baseUrl}/statussen/${relations.status.get(row.id)}` : null,
    zaakinformatieobjecten: (relations.zaakinformatieobjecten.get(row.id) ?? []).map((uuid) => `${baseUrl}/zaakinformatieobjecten/${uuid}`),
    zaakobjecten: (relations.zaakobjecten.get(row.id) ?? []).map((uuid) => `${baseUrl}/zaakobjecten/${uuid}`),
    kenmerken: row.kenmerken,
    archiefnominatie: row.archiefnominatie || null,
    archiefstatus: row.archiefstatus,
    archiefactiedatum: row.archiefactiedatum ?? null,
    resultaat: relations.resultaat.has(row.id) ? `${baseUrl}/resultaten/${relations.resultaat.get(row.id)}` : null,
    opdrachtgevendeOrganisatie: row.opdrachtgevende_organisatie,
    processobjectaard: row.processobjectaard ?? null,
    startdatumBewaartermijn: row.startdatum_bewaartermijn ?? null,
    processobject: {
      datumkenmerk: row.processobject_datumkenmerk,
      identificatie: row.processobject_identificatie,
      objecttype: row.processobject_objecttype,
      registratie: row.processobject_registratie,
    },
  };
}

const NO_RELATIONS = noRelations();
/** The attributes derived from a zaak's records (and deelzaken): rendering them costs a subselect each. */
export const DERIVED_ATTRIBUTES = ['deelzaken', 'eigenschappen', 'rollen', 'status', 'zaakinformatieobjecten', 'zaakobjecten', 'resultaat'] as const;
const DERIVED_LISTS = new Set<string>(DERIVED_ATTRIBUTES);

/** A rendered zaak's own fields, without those derived from its records: what `ctx.zaak` holds. */
export function ownFields(zaak: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const summary: Record<string, unknown> = {};
  // Copied rather than deleted from the rendering: an object keys were deleted from is slow to use.
  for (const key in zaak) if (!DERIVED_LISTS.has(key)) summary[key] = zaak[key];
  return summary;
}

/** `ownFields` of a zaak's row. */
export const zaakSummary = (row: ZaakRow, baseUrl: string): Record<string, unknown> => ownFields(renderZaak(row, NO_RELATIONS, baseUrl));
