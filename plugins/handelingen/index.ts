import { checkOptions, optionsSchema, type Plugin } from '../../src/plugin-api.js';
import { openApiFragment } from './openapi.js';
import { zaakAfsluiten, zaakBijwerken, zaakOpschorten, zaakRegistreren, zaakVerlengen } from './operations.js';

/** The handelingen plugin has no options: `{}` or `true` in a config file turns it on. */
export type HandelingenOptions = Record<string, never>;

/** The options' JSON Schema: the config file's `plugins.handelingen`. */
export const handelingenOptionsSchema = optionsSchema<HandelingenOptions>(
  {},
  {
    description:
      'Experimental: Open Zaak\'s five handelingen (zaak_registreren, zaak_opschorten, zaak_verlengen, zaak_bijwerken, zaak_afsluiten), each one call and one transaction (plugins/handelingen/README.md); not in the standard preset.',
  },
);

/** The operation ids of the handelingen, as Open Zaak names them. */
export const HANDELING_OPERATIONS = ['registreerzaak_create', 'zaakopschorten', 'zaakverlengen', 'zaakbijwerken', 'zaakafsluiten'] as const;

/**
 * Open Zaak's experimental "handelingen" of the Zaken API: registering, suspending, extending,
 * updating and closing a zaak in one call. Each runs the operations the separate calls would use as
 * parts of one request, in one transaction (`registry.operations.run`): the same authorization,
 * rules, closing hooks, audit trail and outbox rows, all or nothing. Hooks see the handeling as
 * `ctx.partOf.operation.id` (`resourceChanged`: `change.ctx?.partOf`).
 */
export function handelingen(options: HandelingenOptions = {}): Plugin {
  checkOptions('handelingen', handelingenOptionsSchema, options);
  return {
    name: 'handelingen',
    setup(api) {
      const operations = [zaakRegistreren(), zaakOpschorten(), zaakVerlengen(), zaakBijwerken(), zaakAfsluiten()];
      for (const operation of operations) api.addOperation(operation);
      api.addOpenApi(openApiFragment(operations));
    },
  };
}
