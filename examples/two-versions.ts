import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRegistry, staticCatalog, versioning, type DeprecationSchedule, type VersionPolicy } from 'zaakregister';

/**
 * Two majors side by side: v1 (Zaken API 1.8.0) deprecated on a published schedule, and a v2 with a
 * small breaking change. Run it with `npx tsx examples/two-versions.ts` (PORT, default 8000).
 */

/** v1's schedule: deprecated from 1 December 2026, gone after 1 June 2027. */
export const V1_SCHEDULE: DeprecationSchedule = {
  deprecated: '2026-12-01',
  sunset: '2027-06-01',
  changelog: 'https://example.nl/zaken/CHANGELOG.md#200',
};

const DROPPED = 'betalingsindicatieWeergave';

/** A zaak without the field, also the zaken expanded inside it (`_expand.hoofdzaak`, `deelzaken`, ...). */
function withoutDropped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDropped);
  if (!value || typeof value !== 'object') return value;
  const copy = { ...(value as Record<string, unknown>) };
  delete copy[DROPPED];
  if (copy._expand) copy._expand = Object.fromEntries(Object.entries(copy._expand as object).map(([key, expanded]) => [key, withoutDropped(expanded)]));
  return copy;
}

/**
 * v2's breaking change: a Zaak no longer carries the read-only `betalingsindicatieWeergave` (clients
 * derive the label from `betalingsindicatie`). Removed from zaak bodies and from v2's `Zaak` schema.
 */
export const zaakWithoutBetalingsindicatieWeergave: Pick<VersionPolicy, 'serialize' | 'document'> = {
  serialize(body, ctx) {
    if (ctx.operation.resource !== 'zaak') return body;
    // Lists and searches answer a page of zaken; the other operations one zaak.
    const page = body as { results?: unknown };
    return Array.isArray(page?.results) ? { ...page, results: page.results.map(withoutDropped) } : withoutDropped(body);
  },
  document(document) {
    const zaak = (document.components as { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> }).schemas.Zaak;
    delete zaak.properties[DROPPED];
    zaak.required = zaak.required.filter((name) => name !== DROPPED);
  },
};

/** The versioning plugin of this example: 1.8.0 on its way out, 2.0.0 current. */
export const twoVersions = () =>
  versioning({
    versions: [
      { version: '1.8.0', deprecation: V1_SCHEDULE },
      { version: '2.0.0', ...zaakWithoutBetalingsindicatieWeergave },
    ],
  });

// Serve only when run directly, so tests can import the pieces above.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const registry = await createRegistry({
    storage: 'memory',
    authorization: 'development',
    catalog: staticCatalog(fileURLToPath(new URL('./demo-catalog.json', import.meta.url))),
    plugins: [twoVersions()],
  });
  const port = Number(process.env.PORT ?? 8000);
  await registry.listen(port);
  for (const { version, basePath } of registry.versions) console.log(`Zaken API ${version}: http://localhost:${port}${basePath}/zaken`);
  process.once('SIGINT', () => void registry.close());
}
