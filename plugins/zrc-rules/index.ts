import { checkOptions, optionsSchema, type Plugin } from '../../src/plugin-api.js';
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
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.zrc-rules`. */
export const zrcRulesOptionsSchema = optionsSchema<ZrcRulesOptions>({
  referenceCacheTtlMs: { type: 'integer', minimum: 0, description: 'How long fetched references are cached.' },
}, { description: "The run-time rules of the Zaken API standard (zrc-001…020, zrc-023) and the zaak's lifecycle (plugins/zrc-rules/README.md); in the standard preset." });

/**
 * The run-time rules of the Zaken API standard beyond the schemas (zrc-001, 002, 003, 004, 010, 011,
 * 013, 014, 015, 016…020, 023, and no status before its zaak's startdatum; the core covers 009, 012
 * and the uniqueness of zrc-002) and the lifecycle of a zaak: closing by its end status, the closed
 * zaak's protection, reopening, archiefstatus.
 */
export function zrcRules(options: ZrcRulesOptions = {}): Plugin {
  checkOptions('zrcRules', zrcRulesOptionsSchema, options);
  const remote = lookups(options.referenceCacheTtlMs ?? 60_000);
  const states = lifecycle(remote);
  return {
    name: 'zrc-rules',
    async validate(ctx) {
      const { resource, action } = ctx.operation;
      if (resource === 'zaak') {
        if (ZAAK_WRITES.has(action)) await validateZaak(ctx, remote);
        return;
      }
      await validateRecord(ctx, remote);
      await states.prefetch(ctx);
    },
    async beforeWrite(ctx) {
      const hoofdzaak = await hoofdzaakOf(ctx);
      recheckRecord(ctx);
      await states.beforeWrite(ctx, hoofdzaak ? [hoofdzaak] : []);
      await recheckZaak(ctx, remote, hoofdzaak);
    },
    afterWrite: (ctx) => states.afterWrite(ctx),
  };
}
