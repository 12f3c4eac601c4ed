import type { Knex } from 'knex';
import type { JsonSchema, QueryParameter } from '../../operation.js';
import { ROL_IDENTIFICATION_KEYS } from '../../storage/migrations/001-zaak.js';
import {
  ARCHIEFNOMINATIE,
  ARCHIEFSTATUS,
  BETROKKENE_TYPE,
  OMSCHRIJVING_GENERIEK,
  VERTROUWELIJKHEIDAANDUIDING,
  vertrouwelijkheidRank,
} from '../shared/enums.js';

/** A filter of the zaak list: its parameter (name, schema, description) and how it narrows the query. */
export interface ZaakFilter extends QueryParameter {
  apply(query: Knex.QueryBuilder, value: unknown): void;
}

const text: JsonSchema = { type: 'string' };
const date: JsonSchema = { type: 'string', format: 'date' };
const list = (items: JsonSchema = text): JsonSchema => ({ type: 'array', items });
const bool: JsonSchema = { type: 'boolean' };
const choice = (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] });

const equals = (name: string, column: string, description: string, schema: JsonSchema = text): ZaakFilter => ({
  name,
  description,
  schema,
  apply: (q, v) => void q.where(`zaak.${column}`, v as string),
});
const oneOf = (name: string, column: string, description: string, items: JsonSchema = text): ZaakFilter => ({
  name: `${name}__in`,
  description: `${description} Meerdere waarden, gescheiden door komma's.`,
  schema: list(items),
  apply: (q, v) => void q.whereIn(`zaak.${column}`, v as string[]),
});
const COMPARATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const compare = (name: string, column: string, op: keyof typeof COMPARATORS, label: string): ZaakFilter => ({
  name: `${name}__${op}`,
  description: `${label} is ${{ gt: 'groter dan', gte: 'groter dan of gelijk aan', lt: 'kleiner dan', lte: 'kleiner dan of gelijk aan' }[op]} de opgegeven datum.`,
  schema: date,
  apply: (q, v) => void q.where(`zaak.${column}`, COMPARATORS[op], v as string),
});
const isNull = (name: string, column: string, label: string): ZaakFilter => ({
  name: `${name}__isnull`,
  description: `${label} is leeg.`,
  schema: bool,
  apply: (q, v) => void (v ? q.whereNull(`zaak.${column}`) : q.whereNotNull(`zaak.${column}`)),
});

/** EXISTS over the zaak's rollen: one indexed subquery per filter, never a join that multiplies rows. */
const rolExists = (name: string, description: string, schema: JsonSchema, where: (q: Knex.QueryBuilder, v: string) => void): ZaakFilter => ({
  name,
  description,
  schema,
  apply: (q, v) =>
    void q.whereExists(function (this: Knex.QueryBuilder) {
      this.select(1).from('rol').whereRaw('rol.zaak_id = zaak.id');
      where(this, v as string);
    }),
});

export const ROL_IDENTIFICATION_FILTERS: [string, string, (typeof ROL_IDENTIFICATION_KEYS)[number], number | undefined][] = [
  ['natuurlijkPersoon__inpBsn', 'natuurlijk_persoon', 'inpBsn', 9],
  ['natuurlijkPersoon__anpIdentificatie', 'natuurlijk_persoon', 'anpIdentificatie', 17],
  ['natuurlijkPersoon__inpA_nummer', 'natuurlijk_persoon', 'inpA_nummer', 10],
  ['nietNatuurlijkPersoon__innNnpId', 'niet_natuurlijk_persoon', 'innNnpId', undefined],
  ['nietNatuurlijkPersoon__annIdentificatie', 'niet_natuurlijk_persoon', 'annIdentificatie', 17],
  ['vestiging__vestigingsNummer', 'vestiging', 'vestigingsNummer', 24],
  ['medewerker__identificatie', 'medewerker', 'identificatie', 254],
  ['organisatorischeEenheid__identificatie', 'organisatorische_eenheid', 'identificatie', undefined],
];

/** Every filter of GET /zaken in the Zaken API contract, in the order of the standard. */
export const zaakFilters: ZaakFilter[] = [
  equals('identificatie', 'identificatie', 'De unieke identificatie van de ZAAK binnen de bronorganisatie.'),
  equals('bronorganisatie', 'bronorganisatie', 'Het RSIN van de organisatie die de zaak heeft gecreëerd.'),
  oneOf('bronorganisatie', 'bronorganisatie', 'Het RSIN van de bronorganisatie.'),
  equals('zaaktype', 'zaaktype', 'URL-referentie naar het ZAAKTYPE.', { type: 'string', format: 'uri' }),
  equals('archiefnominatie', 'archiefnominatie', 'De archiefnominatie.', choice(ARCHIEFNOMINATIE)),
  oneOf('archiefnominatie', 'archiefnominatie', 'De archiefnominatie.', choice(ARCHIEFNOMINATIE)),
  equals('archiefactiedatum', 'archiefactiedatum', 'De archiefactiedatum.', date),
  isNull('archiefactiedatum', 'archiefactiedatum', 'De archiefactiedatum'),
  compare('archiefactiedatum', 'archiefactiedatum', 'lt', 'De archiefactiedatum'),
  compare('archiefactiedatum', 'archiefactiedatum', 'gt', 'De archiefactiedatum'),
  equals('archiefstatus', 'archiefstatus', 'De archiefstatus.', choice(ARCHIEFSTATUS)),
  oneOf('archiefstatus', 'archiefstatus', 'De archiefstatus.', choice(ARCHIEFSTATUS)),
  equals('startdatum', 'startdatum', 'De startdatum.', date),
  compare('startdatum', 'startdatum', 'gt', 'De startdatum'),
  compare('startdatum', 'startdatum', 'gte', 'De startdatum'),
  compare('startdatum', 'startdatum', 'lt', 'De startdatum'),
  compare('startdatum', 'startdatum', 'lte', 'De startdatum'),
  equals('registratiedatum', 'registratiedatum', 'De registratiedatum.', date),
  compare('registratiedatum', 'registratiedatum', 'gt', 'De registratiedatum'),
  compare('registratiedatum', 'registratiedatum', 'lt', 'De registratiedatum'),
  equals('einddatum', 'einddatum', 'De einddatum.', date),
  isNull('einddatum', 'einddatum', 'De einddatum'),
  compare('einddatum', 'einddatum', 'gt', 'De einddatum'),
  compare('einddatum', 'einddatum', 'lt', 'De einddatum'),
  equals('einddatumGepland', 'einddatum_gepland', 'De geplande einddatum.', date),
  compare('einddatumGepland', 'einddatum_gepland', 'gt', 'De geplande einddatum'),
  compare('einddatumGepland', 'einddatum_gepland', 'lt', 'De geplande einddatum'),
  equals('uiterlijkeEinddatumAfdoening', 'uiterlijke_einddatum_afdoening', 'De uiterlijke einddatum afdoening.', date),
  compare('uiterlijkeEinddatumAfdoening', 'uiterlijke_einddatum_afdoening', 'gt', 'De uiterlijke einddatum afdoening'),
  compare('uiterlijkeEinddatumAfdoening', 'uiterlijke_einddatum_afdoening', 'lt', 'De uiterlijke einddatum afdoening'),
  rolExists('rol__betrokkeneType', 'Type van de betrokkene van een ROL.', choice(BETROKKENE_TYPE), (q, v) => void q.where('rol.betrokkene_type', v)),
  rolExists('rol__betrokkene', 'URL-referentie naar een betrokkene van een ROL.', { type: 'string', format: 'uri' }, (q, v) => void q.where('rol.betrokkene', v)),
  rolExists('rol__omschrijvingGeneriek', 'De generieke omschrijving van een ROL.', choice(OMSCHRIJVING_GENERIEK), (q, v) => void q.where('rol.omschrijving_generiek', v)),
  {
    name: 'maximaleVertrouwelijkheidaanduiding',
    description: 'Zaken met een vertrouwelijkheidaanduiding die beperkter is dan de aangegeven aanduiding worden uit de resultaten gefilterd.',
    schema: choice(VERTROUWELIJKHEIDAANDUIDING),
    apply: (q, v) => void q.where('zaak.vertrouwelijkheid_rank', '<=', vertrouwelijkheidRank(v as string)),
  },
  ...ROL_IDENTIFICATION_FILTERS.map(([suffix, type, key, maxLength]) =>
    rolExists(
      `rol__betrokkeneIdentificatie__${suffix}`,
      `Filter op ${key} van een betrokkene van het type ${type}.`,
      maxLength ? { type: 'string', maxLength } : text,
      (q, v) => void q.where('rol.betrokkene_type', type).whereRaw(`rol.betrokkene_identificatie ->> '${key}' = ?`, [v]),
    ),
  ),
];

/** Extra keys of the POST /zaken/_zoek body (beyond the list filters). */
export const zaakSearchFilters: ZaakFilter[] = [
  {
    name: 'uuid__in',
    description: 'UUIDs van zaken.',
    schema: list({ type: 'string', format: 'uuid' }),
    apply: (q, v) => void q.whereIn('zaak.uuid', v as string[]),
  },
  oneOf('zaaktype', 'zaaktype', 'URL-referenties naar ZAAKTYPEn.', { type: 'string', format: 'uri' }),
];

export const ORDERING_COLUMNS: Record<string, string> = {
  startdatum: 'startdatum',
  einddatum: 'einddatum',
  publicatiedatum: 'publicatiedatum',
  archiefactiedatum: 'archiefactiedatum',
  registratiedatum: 'registratiedatum',
  identificatie: 'identificatie',
};
export const ORDERING_VALUES = Object.keys(ORDERING_COLUMNS).flatMap((field) => [field, `-${field}`]);
