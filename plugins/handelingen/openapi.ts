import type { JsonSchema, Operation, OpenApiFragment } from '../../src/plugin-api.js';

export type HandelingName = 'zaak_registreren' | 'zaak_opschorten' | 'zaak_verlengen' | 'zaak_bijwerken' | 'zaak_afsluiten';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const list = (name: string): JsonSchema => ({ type: 'array', items: ref(name) });
/** A part's request body: the resource's own, without `zaak`, which the handeling fills in. */
const withoutZaak = (name: string, description: string): JsonSchema => ({ allOf: [ref(name)], description: `${description} Zonder \`zaak\`: die vult de handeling in.` });

const EXPERIMENTAL = 'EXPERIMENTEEL: geen onderdeel van de Zaken API-standaard; gelijk aan de gelijknamige handeling van Open Zaak.';
const ONE_TRANSACTION =
  'Alle delen worden in één transactie geschreven, elk zoals de losse aanroep het doet (autorisatie, regels, audittrail, notificaties); ' +
  'faalt één deel, dan wordt niets opgeslagen. Validatiefouten staan onder de naam van het deel (`status.statustype`, `rollen.2.betrokkeneType`).';

const SCHEMAS: Record<string, JsonSchema> = {
  ZaakRegistrerenRequest: {
    type: 'object',
    required: ['zaak', 'rollen', 'status'],
    properties: {
      zaak: ref('Zaak'),
      rollen: { type: 'array', items: withoutZaak('Rol', 'Een ROL van de zaak.') },
      status: withoutZaak('Status', 'De eerste STATUS; geen eindstatus.'),
      zaakinformatieobjecten: { type: 'array', items: withoutZaak('ZaakInformatieObject', 'Een ZAAK-INFORMATIEOBJECT.') },
      zaakobjecten: { type: 'array', items: withoutZaak('ZaakObject', 'Een ZAAKOBJECT.') },
    },
  },
  ZaakRegistreren: {
    type: 'object',
    properties: { zaak: ref('Zaak'), rollen: list('Rol'), zaakinformatieobjecten: list('ZaakInformatieObject'), zaakobjecten: list('ZaakObject'), status: ref('Status') },
  },
  ZaakOpschortenRequest: {
    type: 'object',
    required: ['zaak', 'status'],
    properties: {
      zaak: { type: 'object', required: ['opschorting'], properties: { opschorting: { type: 'object', required: ['indicatie', 'reden'], properties: { indicatie: { type: 'boolean' }, reden: { type: 'string', maxLength: 200 } } } } },
      status: withoutZaak('Status', 'Een STATUS; geen eindstatus.'),
    },
  },
  ZaakVerlengenRequest: {
    type: 'object',
    required: ['zaak', 'status'],
    properties: {
      zaak: { type: 'object', required: ['verlenging'], properties: { verlenging: { type: 'object', required: ['reden', 'duur'], properties: { reden: { type: 'string', maxLength: 200 }, duur: { type: 'string', format: 'duration' } } } } },
      status: withoutZaak('Status', 'Een STATUS; geen eindstatus.'),
    },
  },
  ZaakBijwerkenRequest: {
    type: 'object',
    required: ['status'],
    properties: {
      zaak: ref('PatchedZaak'),
      status: withoutZaak('Status', 'Een STATUS; geen eindstatus.'),
      rollen: {
        type: 'array',
        description: 'Vervangt de rollen van de zaak: een rol met `uuid` wordt in zijn geheel bijgewerkt, een zonder wordt aangemaakt, een rol van de zaak die er niet in staat wordt verwijderd. Zonder `rollen` blijven de rollen zoals ze zijn.',
        items: { allOf: [ref('Rol')], properties: { uuid: { type: 'string', format: 'uuid', description: 'De uuid van een rol van deze zaak.' } } },
      },
    },
  },
  ZaakAfsluitenRequest: {
    type: 'object',
    required: ['zaak', 'resultaat', 'status'],
    properties: { zaak: ref('PatchedZaak'), resultaat: withoutZaak('Resultaat', 'Het RESULTAAT.'), status: withoutZaak('Status', 'De eindstatus.') },
  },
  ZaakMetStatus: { type: 'object', properties: { zaak: ref('Zaak'), status: ref('Status') } },
  ZaakBijgewerkt: { type: 'object', properties: { zaak: ref('Zaak'), rollen: list('Rol'), status: ref('Status') } },
  ZaakAfgesloten: { type: 'object', properties: { zaak: ref('Zaak'), resultaat: ref('Resultaat'), status: ref('Status') } },
};

const DOCUMENTATION: Record<HandelingName, { summary: string; scopes: string; writes: string; request: string; response: string; status: number }> = {
  zaak_registreren: {
    summary: 'Registreer een ZAAK met haar eerste STATUS, ROLlen, ZAAK-INFORMATIEOBJECTen en ZAAKOBJECTen.',
    scopes: '`zaken.aanmaken` en (`zaken.bijwerken` of `zaken.geforceerd-bijwerken`), voor het zaaktype en de vertrouwelijkheidaanduiding van de zaak.',
    writes: 'zaak, status, rollen, zaakinformatieobjecten, zaakobjecten. Een eindstatus kan niet: `status.nonFieldErrors` / `resultaat-does-not-exist`.',
    request: 'ZaakRegistrerenRequest',
    response: 'ZaakRegistreren',
    status: 201,
  },
  zaak_opschorten: {
    summary: 'Schort een ZAAK op en zet een STATUS.',
    scopes: '(`zaken.bijwerken` of `zaken.geforceerd-bijwerken`) en (`zaken.aanmaken`, `zaken.statussen.toevoegen` of `zaken.heropenen`).',
    writes: 'de opschorting van de zaak, dan de status; geen eindstatus (`status.nonFieldErrors` / `eindstatus-not-allowed`).',
    request: 'ZaakOpschortenRequest',
    response: 'ZaakMetStatus',
    status: 200,
  },
  zaak_verlengen: {
    summary: 'Verleng de doorlooptijd van een ZAAK en zet een STATUS.',
    scopes: '(`zaken.bijwerken` of `zaken.geforceerd-bijwerken`) en (`zaken.aanmaken`, `zaken.statussen.toevoegen` of `zaken.heropenen`).',
    writes: 'de verlenging van de zaak, dan de status; geen eindstatus (`status.nonFieldErrors` / `eindstatus-not-allowed`).',
    request: 'ZaakVerlengenRequest',
    response: 'ZaakMetStatus',
    status: 200,
  },
  zaak_bijwerken: {
    summary: 'Werk een ZAAK deels bij, zet een STATUS en vervang haar ROLlen.',
    scopes: '(`zaken.bijwerken` of `zaken.geforceerd-bijwerken`) en (`zaken.aanmaken`, `zaken.statussen.toevoegen` of `zaken.heropenen`).',
    writes:
      'de zaak (deels), de status (geen eindstatus: `eindstatus-not-allowed`), dan de rollen. Een `rollen.<i>.uuid` die twee keer voorkomt (`duplicate`), bij een andere zaak hoort (`missing-relation`) of niet bestaat (`does-not-exist`) wordt geweigerd.',
    request: 'ZaakBijwerkenRequest',
    response: 'ZaakBijgewerkt',
    status: 200,
  },
  zaak_afsluiten: {
    summary: 'Sluit een ZAAK af: deels bijwerken, RESULTAAT en eindstatus.',
    scopes: '(`zaken.bijwerken` of `zaken.geforceerd-bijwerken`) en (`zaken.aanmaken`, `zaken.statussen.toevoegen` of `zaken.heropenen`).',
    writes: 'de zaak (deels; `{}` mag), het resultaat, dan de eindstatus, die de zaak afsluit (`status.nonFieldErrors` / `eindstatus-required` voor een andere status).',
    request: 'ZaakAfsluitenRequest',
    response: 'ZaakAfgesloten',
    status: 200,
  },
};

/** The OpenAPI details of a handeling's operation. */
export function documentation(name: HandelingName): Operation['openapi'] {
  const doc = DOCUMENTATION[name];
  return {
    summary: doc.summary,
    description: `${EXPERIMENTAL}\n\n${ONE_TRANSACTION}\n\n**Schrijft**: ${doc.writes}\n\n**Scopes**: ${doc.scopes}`,
    tags: ['handelingen'],
    successStatus: doc.status,
    requestSchema: ref(doc.request),
    responseSchema: ref(doc.response),
  };
}

const CONFLICT = {
  description: 'Conflict: een gelijktijdige wijziging; probeer het opnieuw.',
  content: { 'application/problem+json': { schema: ref('Fout') } },
};

/** The schemas, the tag, and per operation `x-experimental` and the 409 the core's error responses leave out. */
export function openApiFragment(operations: readonly Operation[]): OpenApiFragment {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) paths[operation.path] = { [operation.method]: { 'x-experimental': true, responses: { '409': CONFLICT } } };
  return {
    paths,
    components: { schemas: SCHEMAS },
    tags: [{ name: 'handelingen', description: `${EXPERIMENTAL} Een ZAAK registreren, opschorten, verlengen, bijwerken of afsluiten in één aanroep en één transactie.` }],
  } as OpenApiFragment;
}
