import type { Plugin } from 'zaakregister';
import { invalidParam } from 'zaakregister';

/**
 * A vendor plugin in a few lines: a business rule (zaken of this municipality need an omschrijving)
 * and a response header. Register it with `createRegistry({ plugins: [requireOmschrijving()] })`.
 */
export function requireOmschrijving(options: { header?: string } = {}): Plugin {
  const header = options.header ?? 'X-Gemeente-Regels';
  return {
    name: 'gemeente-omschrijving-verplicht',
    async validate(ctx) {
      if (ctx.operation.resource === 'zaak' && ctx.operation.action === 'create' && !ctx.data?.omschrijving) {
        throw invalidParam('omschrijving', 'required', 'Deze gemeente vraagt een omschrijving bij elke zaak.');
      }
    },
    async onResponse(ctx) {
      ctx.response.headers[header] = 'omschrijving-verplicht';
    },
  };
}
