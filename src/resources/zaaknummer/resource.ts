import type { CoreOperation, JsonSchema } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import { rsinSchema } from '../../schema/rsin.js';

/** The most zaaknummers one request reserves: enough for a batch, too few to drain the sequence. */
const MAX_ZAAKNUMMERS = 100;

const requestRef = { $ref: '#/components/schemas/ReserveZaakIdentificatieRequest' };
const zaaknummerRef = { $ref: '#/components/schemas/ReserveZaakIdentificatie' };

const reserveRequestSchema: JsonSchema = {
  type: 'object',
  properties: {
    bronorganisatie: {
      ...rsinSchema('Het RSIN van de organisatie die de zaken met deze nummers aanmaakt; alleen zaken van deze bronorganisatie kunnen ze krijgen.'),
      writeOnly: true,
    },
    aantal: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ZAAKNUMMERS,
      default: 1,
      writeOnly: true,
      description: `Het aantal zaaknummers om te reserveren, ten hoogste ${MAX_ZAAKNUMMERS}.`,
    },
  },
  required: ['bronorganisatie'],
};

const zaaknummerSchema: JsonSchema = {
  type: 'object',
  properties: {
    zaaknummer: {
      type: 'string',
      readOnly: true,
      title: 'Zaaknummer',
      description: 'De unieke identificatie van de ZAAK binnen de organisatie die verantwoordelijk is voor de behandeling van de ZAAK.',
    },
  },
  required: ['zaaknummer'],
};

/** The schemas `zaaknummer_reserveren` refers to, for the served OpenAPI document. */
export const zaaknummerOpenApi: OpenApiFragment = {
  components: { schemas: { ReserveZaakIdentificatieRequest: reserveRequestSchema, ReserveZaakIdentificatie: zaaknummerSchema } },
};

/**
 * `POST /zaaknummer_reserveren` (Zaken API 1.7): zaaknummers for zaken a client creates later, from
 * the sequence generated identificaties come from (`core/013_zaaknummer_reservation`), so no zaak is
 * ever generated with one. A zaak gets a reserved number only when a client gives it as
 * `identificatie`, with the bronorganisatie it was reserved for. The answer is always a list, as the
 * contract's schema says, also for one number. A reservation is no resource: no URL to point a
 * `Location` at, no audit trail (which belongs to a zaak), no notification.
 */
export function zaaknummerOperations(): CoreOperation[] {
  return [
    {
      id: 'zaaknummer_reserveren',
      method: 'post',
      path: '/zaaknummer_reserveren',
      resource: 'zaaknummer',
      action: 'reserveren',
      write: true,
      scopes: ['zaken.aanmaken'],
      // No zaak yet, so no zaaktype: zaken.aanmaken for any zaaktype allows it.
      accessSubjects: () => [],
      requestBody: reserveRequestSchema,
      async execute(ctx) {
        const tx = ctx.tx!;
        const { bronorganisatie, aantal = 1 } = ctx.data as { bronorganisatie: string; aantal?: number };
        const reserved = tx.raw('zaaknummer_reserve(?, ?, ?) as zaaknummer', [bronorganisatie, aantal, ctx.principal?.clientId ?? '']);
        ctx.response.status = 201;
        ctx.response.body = await tx.select('zaaknummer').from(reserved).orderBy('zaaknummer');
      },
      openapi: {
        summary: 'Reserveer een zaaknummer',
        description:
          'Reserveer een of meer zaaknummers binnen een bronorganisatie zonder direct een zaak aan te maken. ' +
          'Gereserveerde zaaknummers worden nooit automatisch uitgegeven; een zaak krijgt er een alleen als de ' +
          'identificatie bij het aanmaken wordt meegegeven, met de bronorganisatie waarvoor het gereserveerd is. ' +
          'Het antwoord is altijd een lijst, ook bij `aantal` 1.',
        tags: ['zaaknummer_reserveren'],
        successStatus: 201,
        requestSchema: requestRef,
        responseSchema: { type: 'array', items: zaaknummerRef },
      },
    },
  ];
}
