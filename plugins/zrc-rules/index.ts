import { checkOptions, optionsSchema, type Plugin } from '../../src/plugin-api.js';
import { ZAAKEIGENSCHAP_WRITES, eigenschapSpecificatie } from './eigenschap.js';
import { lifecycle } from './lifecycle.js';
import { lookups } from './lookups.js';
import { recheckRecord, validateRecord } from './records.js';
import { ZAAK_WRITES, hoofdzaakOf, recheckZaak, validateZaak } from './zaak.js';

export interface ZrcRulesOptions {
  /**
   * How long fetched communicatiekanalen and zaken in other registries are kept, default 60,000 ms
   * (0: only within one request). Types are cached by the catalog client; documents are always
   * fetched fresh, since their indicatieGebruiksrecht and status change while a zaak is handled.
   */
  referenceCacheTtlMs?: number;
  /**
   * A zaakeigenschap whose `waarde` does not meet its eigenschap's `specificatie` in the Catalogi API
   * (formaat, lengte, waardenverzameling, kardinaliteit): `warn` (default, as Zaken API 1.7 asks)
   * stores it and answers with an `X-Warning` header; `reject` answers 400 (`waarde`,
   * `specificatie-…`) and stores nothing.
   */
  eigenschapSpecificatie?: 'warn' | 'reject';
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.zrc-rules`. */
export const zrcRulesOptionsSchema = optionsSchema<ZrcRulesOptions>({
  referenceCacheTtlMs: { type: 'integer', minimum: 0, description: 'How long fetched references are cached.' },
  eigenschapSpecificatie: {
    type: 'string',
    enum: ['warn', 'reject'],
    description:
      "A zaakeigenschap waarde that does not meet its eigenschap's specificatie: warn (default: stored, answered with an X-Warning header) or reject (400, nothing stored).",
  },
}, { description: "The run-time rules of the Zaken API standard (zrc-001…020, zrc-023) and the zaak's lifecycle (plugins/zrc-rules/README.md); in the standard preset." });

/**
 * The run-time rules of the Zaken API standard beyond the schemas (zrc-001, 002, 003, 004, 010, 011,
 * 013, 014, 015, 016…020, 023, and no status before its zaak's startdatum; the core covers 009, 012
 * and the uniqueness of zrc-002), the zaakeigenschap's waarde against its specificatie, and the
 * lifecycle of a zaak: closing by its end status, the closed zaak's protection, reopening, archiefstatus.
 */
export function zrcRules(options: ZrcRulesOptions = {}): Plugin {
  checkOptions('zrcRules', zrcRulesOptionsSchema, options);
  const remote = lookups(options.referenceCacheTtlMs ?? 60_000);
  const states = lifecycle(remote);
  const specificatie = eigenschapSpecificatie(options.eigenschapSpecificatie ?? 'warn', remote);
  return {
    name: 'zrc-rules',
    setup: (api) => api.addOpenApi(specificatie.openApi(api.operations())),
    async validate(ctx) {
      const { resource, action } = ctx.operation;
      if (resource === 'zaak') {
        if (ZAAK_WRITES.has(action)) await validateZaak(ctx, remote);
        return;
      }
      await validateRecord(ctx, remote);
      await specificatie.validate(ctx);
      await states.prefetch(ctx);
    },
    async beforeWrite(ctx) {
      // A 400 of the rules before the closed zaak's 403, as in validation.
      await specificatie.beforeWrite(ctx);
      const hoofdzaak = await hoofdzaakOf(ctx);
      recheckRecord(ctx);
      await states.beforeWrite(ctx, hoofdzaak ? [hoofdzaak] : []);
      await recheckZaak(ctx, remote, hoofdzaak);
    },
    afterWrite: (ctx) => states.afterWrite(ctx),
    onResponse: { operations: ZAAKEIGENSCHAP_WRITES, handler: (ctx) => specificatie.onResponse(ctx) },
  };
}
