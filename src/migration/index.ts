import type { MigrationService, RegistryServices, ResourceChange } from '../plugin-types.js';
import { runImport } from './import.js';
import { exportBundles } from './read-bundles.js';
import { verifyJob } from './verify.js';

/** The base URL a migration uses when the registry has none configured (the CLI's default). */
export const DEFAULT_MIGRATION_BASE_URL = 'http://localhost:8000/zaken/api/v1';

/** `services.migration`: export, import and verification on the registry's storage; imports announced with `announce`. */
export function migrationService(services: () => RegistryServices, announce: (change: ResourceChange) => Promise<void>): MigrationService {
  const baseUrlOf = (given?: string) => (given ?? services().baseUrl ?? DEFAULT_MIGRATION_BASE_URL).replace(/\/+$/, '');
  return {
    export: (options = {}) => exportBundles(services(), baseUrlOf(options.baseUrl), options.filters, options.pageSize),
    import(lines, options = {}) {
      const { storage, catalog } = services();
      const zaaktypeKnown = async (url: string) => !!(await catalog.zaaktype(url).catch(() => undefined));
      return runImport({ storage, announce, zaaktypeKnown }, lines, { ...options, baseUrl: baseUrlOf(options.baseUrl) });
    },
    verify: (jobId, lines) => verifyJob(services(), jobId, lines),
  };
}
