/**
 * A registry process for the trust-store test (oauth-issuers.test.ts), run through tsx with the
 * environment the test gives it (NODE_EXTRA_CA_CERTS):
 *
 *   two-issuers-child.ts <issuer> <issuer> <audience>
 *
 * The oauth plugin accepts both issuers and trusts the test CA through `fetch.ca`. Prints `serving
 * <zaken URL>` and runs until killed.
 */
import { consoleLogger, createRegistry, staticAuthorizations } from '../../src/index.js';
import { testCatalog } from '../../test/helpers/registry.js';
import { oauth } from './index.js';
import { TLS } from './test-flow.js';

const [first, second, audience] = process.argv.slice(2);
const registry = await createRegistry({
  storage: 'memory',
  preset: 'none',
  catalog: testCatalog(),
  logger: consoleLogger('silent'),
  plugins: [
    oauth({
      issuers: [first, second],
      audience,
      fetch: { ca: TLS.ca },
      authorizations: staticAuthorizations([{ clientIds: ['zaaksysteem'], label: 'Zaaksysteem', heeftAlleAutorisaties: true, autorisaties: [] }]),
    }),
  ],
});
const server = await registry.listen(0, '127.0.0.1');
const { port } = server.address() as { port: number };
process.stdout.write(`serving http://127.0.0.1:${port}/zaken/api/v1/zaken\n`);
