import type { JsonSchema } from '../../operation.js';
import { rsinSchema as rsin } from '../../schema/rsin.js';
import { geometrySchema } from '../shared/geometry.js';
import {
  AARD_RELATIE,
  ARCHIEFNOMINATIE,
  ARCHIEFSTATUS,
  BETALINGSINDICATIE,
  VERTROUWELIJKHEIDAANDUIDING,
} from '../shared/enums.js';

const url = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', format: 'uri', maxLength: 1000, description, ...extra });
const readOnlyUrls = (description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'string', format: 'uri' },
  readOnly: true,
  uniqueItems: true,
  description,
});

export const verlengingSchema: JsonSchema = {
  type: 'object',
  nullable: true,
  description: 'Gegevens omtrent het verlengen van de doorlooptijd van de behandeling van de ZAAK.',
  properties: {
    reden: { type: 'string', maxLength: 200, description: 'Omschrijving van de reden voor het verlengen.' },
    duur: { type: 'string', format: 'duration', maxLength: 64, nullable: true, description: 'Het aantal werkbare dagen waarmee de doorlooptijd is verlengd (ISO 8601-duur).' },
  },
  required: ['reden', 'duur'],
};

export const opschortingSchema: JsonSchema = {
  type: 'object',
  nullable: true,
  description: 'Gegevens omtrent het tijdelijk opschorten van de behandeling van de ZAAK.',
  properties: {
    indicatie: { type: 'boolean', description: 'Aanduiding of de behandeling van de ZAAK tijdelijk is opgeschort.' },
    reden: { type: 'string', maxLength: 200, description: 'Omschrijving van de reden voor het opschorten.' },
  },
  required: ['indicatie', 'reden'],
};

export const processobjectSchema: JsonSchema = {
  type: 'object',
  nullable: true,
  description: 'Het object, subject of gebeurtenis waarop de zaak vanuit archiveringsoptiek betrekking heeft.',
  properties: {
    datumkenmerk: { type: 'string', maxLength: 250, description: 'De naam van de attribuutsoort die het einde van de procestermijn bepaalt.' },
    identificatie: { type: 'string', maxLength: 250, description: 'De unieke aanduiding van het procesobject.' },
    objecttype: { type: 'string', maxLength: 250, description: 'Het soort object dat het procesobject representeert.' },
    registratie: { type: 'string', maxLength: 250, description: 'De naam van de registratie waarvan het procesobject deel uitmaakt.' },
  },
  required: ['datumkenmerk', 'identificatie', 'objecttype', 'registratie'],
};

/**
 * The Zaak, field for field as in the Zaken API contract (1.8.0): the single source for request validation (read-only
 * fields stripped) and for the `Zaak` schema of the served OpenAPI document.
 */
export const zaakSchema: JsonSchema = {
  type: 'object',
  description: 'Een ZAAK: een samenhangende hoeveelheid werk met een welgedefinieerde aanleiding en een welgedefinieerd eindresultaat.',
  properties: {
    url: { type: 'string', format: 'uri', readOnly: true, minLength: 1, maxLength: 1000, description: 'URL-referentie naar dit object.' },
    uuid: { type: 'string', format: 'uuid', readOnly: true, description: 'Unieke resource identifier (UUID4).' },
    identificatie: { type: 'string', maxLength: 40, description: 'De unieke identificatie van de ZAAK binnen de bronorganisatie; gegenereerd als die ontbreekt.' },
    bronorganisatie: rsin('Het RSIN van de organisatie die de zaak heeft gecreëerd.'),
    omschrijving: { type: 'string', maxLength: 80, description: 'Een korte omschrijving van de zaak.' },
    toelichting: { type: 'string', maxLength: 1000, description: 'Een toelichting op de zaak.' },
    zaaktype: url('URL-referentie naar het ZAAKTYPE (in de Catalogi API).', { minLength: 1 }),
    registratiedatum: { type: 'string', format: 'date', description: 'De datum van registratie; vandaag als die ontbreekt.' },
    verantwoordelijkeOrganisatie: rsin('Het RSIN van de organisatie die eindverantwoordelijk is voor de behandeling.'),
    startdatum: { type: 'string', format: 'date', description: 'De datum waarop met de uitvoering van de zaak is gestart.' },
    einddatum: { type: 'string', format: 'date', readOnly: true, nullable: true, description: 'De datum waarop de uitvoering van de zaak afgerond is.' },
    einddatumGepland: { type: 'string', format: 'date', nullable: true, description: 'De geplande einddatum.' },
    uiterlijkeEinddatumAfdoening: { type: 'string', format: 'date', nullable: true, description: 'De wettelijk uiterlijke einddatum.' },
    publicatiedatum: { type: 'string', format: 'date', nullable: true, description: 'Datum waarop (het starten van) de zaak gepubliceerd is of wordt.' },
    communicatiekanaal: url('URL naar het communicatiekanaal waarlangs de aanleiding is ontvangen.', { maxLength: 1000 }),
    productenOfDiensten: {
      type: 'array',
      items: { type: 'string', format: 'uri', maxLength: 1000 },
      description: 'URLs van de producten en/of diensten die door de zaak worden voortgebracht.',
    },
    vertrouwelijkheidaanduiding: {
      type: 'string',
      enum: [...VERTROUWELIJKHEIDAANDUIDING],
      description: 'Vertrouwelijkheid van het zaakdossier; die van het ZAAKTYPE als die ontbreekt.',
    },
    betalingsindicatie: {
      type: 'string',
      enum: [...BETALINGSINDICATIE, ''],
      description: 'Indicatie of de met de behandeling gemoeide kosten betaald zijn.',
    },
    betalingsindicatieWeergave: { type: 'string', readOnly: true, description: 'Uitleg bij `betalingsindicatie`.' },
    laatsteBetaaldatum: { type: 'string', format: 'date-time', nullable: true, description: 'Het moment van de meest recente betaling.' },
    zaakgeometrie: { ...geometrySchema, nullable: true, description: 'Punt, lijn of (multi-)vlak geometrie-informatie, in GeoJSON.' },
    verlenging: verlengingSchema,
    opschorting: opschortingSchema,
    selectielijstklasse: url('URL-referentie naar de selectielijstklasse.'),
    hoofdzaak: url('URL-referentie naar de ZAAK waarvan dit een deelzaak is.', { nullable: true, minLength: 1 }),
    deelzaken: readOnlyUrls('URL-referenties naar deelzaken.'),
    relevanteAndereZaken: {
      type: 'array',
      description: 'Een lijst van relevante andere zaken.',
      items: {
        type: 'object',
        properties: {
          url: url('URL-referentie naar de ZAAK.'),
          aardRelatie: { type: 'string', enum: [...AARD_RELATIE], description: 'De aard van de relatie.' },
        },
        required: ['url', 'aardRelatie'],
      },
    },
    eigenschappen: readOnlyUrls('URL-referenties naar ZAAKEIGENSCHAPpen.'),
    rollen: readOnlyUrls('URL-referenties naar ROLlen.'),
    status: { type: 'string', format: 'uri', readOnly: true, nullable: true, description: 'De huidige STATUS; null als er geen is.' },
    zaakinformatieobjecten: readOnlyUrls('URL-referenties naar ZAAKINFORMATIEOBJECTen.'),
    zaakobjecten: readOnlyUrls('URL-referenties naar ZAAKOBJECTen.'),
    kenmerken: {
      type: 'array',
      description: 'Lijst van kenmerken.',
      items: {
        type: 'object',
        properties: {
          kenmerk: { type: 'string', maxLength: 40, description: 'Identificeert uniek de zaak in een andere administratie.' },
          bron: { type: 'string', maxLength: 40, description: 'De administratie waar het kenmerk op slaat.' },
        },
        required: ['kenmerk', 'bron'],
      },
    },
    archiefnominatie: {
      type: 'string',
      nullable: true,
      enum: [...ARCHIEFNOMINATIE, '', null],
      description: 'Of het zaakdossier blijvend bewaard of na een termijn vernietigd moet worden.',
    },
    archiefstatus: { type: 'string', enum: [...ARCHIEFSTATUS], description: 'De archiefstatus; standaard `nog_te_archiveren`.' },
    archiefactiedatum: { type: 'string', format: 'date', nullable: true, description: 'De datum van vernietiging of overbrenging.' },
    resultaat: { type: 'string', format: 'uri', readOnly: true, nullable: true, description: 'Het RESULTAAT; null als er geen is.' },
    opdrachtgevendeOrganisatie: { type: 'string', maxLength: 9, description: 'De organisatie die opdracht gaf voor de zaak.' },
    processobjectaard: { type: 'string', maxLength: 200, nullable: true, description: 'Omschrijving van het procesobject.' },
    startdatumBewaartermijn: { type: 'string', format: 'date', nullable: true, description: 'De start van de bewaartermijn.' },
    processobject: processobjectSchema,
  },
  required: [
    'url',
    'uuid',
    'bronorganisatie',
    'zaaktype',
    'verantwoordelijkeOrganisatie',
    'startdatum',
    'einddatum',
    'betalingsindicatieWeergave',
    'deelzaken',
    'eigenschappen',
    'rollen',
    'status',
    'zaakinformatieobjecten',
    'zaakobjecten',
    'resultaat',
  ],
};
