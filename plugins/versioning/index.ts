import { checkOptions, optionsSchema, type ApiVersion, type JsonSchema, type Plugin, type RequestContext } from '../../src/plugin-api.js';

/** When an older major goes: announced on its responses and in its OpenAPI document. */
export interface DeprecationSchedule {
  /** ISO date (or date-time with `Z` or an offset) the version is deprecated from: the `Deprecation` header (RFC 9745). */
  deprecated: string;
  /** ISO date (or date-time) after which the version is no longer served, later than `deprecated`: the `Sunset` header (RFC 8594). */
  sunset: string;
  /** The changelog entry that explains the move to the newer major: `Link: <changelog>; rel="deprecation"`. */
  changelog?: string;
}

/** One version the registry serves and what sets it apart. */
export interface VersionPolicy {
  /** Full semver; its major names the base path (`/zaken/api/v{major}`). */
  version: string;
  /** Only on the older of two versions: its deprecation schedule. */
  deprecation?: DeprecationSchedule;
  /** Changes the response bodies of this version's requests only; return the new body, or nothing to keep it. */
  serialize?: (body: unknown, ctx: RequestContext) => unknown;
  /** Changes this version's OpenAPI document, after the plugin's own changes (a deprecation). */
  document?: (document: Record<string, unknown>) => void;
}

export interface VersioningOptions {
  /** One or two versions with different majors, in any order. */
  versions: VersionPolicy[];
}

const deprecationSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Only on the older of two versions: its deprecation schedule.',
  required: ['deprecated', 'sunset'],
  properties: {
    deprecated: { type: 'string', description: 'ISO date (or date-time with Z or an offset) the version is deprecated from: the Deprecation header.' },
    sunset: { type: 'string', description: 'ISO date (or date-time) after which the version is no longer served: the Sunset header.' },
    changelog: { type: 'string', description: 'The changelog entry that explains the move to the newer major: a Link header.' },
  },
};

/** The options' names and each version's, checked when the plugin is made; the values' rules (semver, dates, majors) at setup. */
export const versioningOptionsSchema = optionsSchema<VersioningOptions>({
  versions: {
    type: 'array',
    description: 'One or two versions with different majors, in any order.',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['version'],
      properties: {
        version: { type: 'string', description: 'Full semver; its major names the base path (/zaken/api/v{major}).' },
        deprecation: deprecationSchema,
        serialize: { description: "A function changing the response bodies of this version's requests." },
        document: { description: "A function changing this version's OpenAPI document." },
      },
    },
  },
});

/** The Zaken API design rules: at most two majors are published at once. */
const MAX_MAJORS = 2;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
/** A date, or a date-time with its zone: a schedule must mean the same instant on every server. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const majorOf = (version: string) => Number(version.split('.')[0]);

function instant(value: unknown, what: string): number {
  const text = typeof value === 'string' ? value : '';
  const day = Date.parse(text.slice(0, 10));
  const valid =
    ISO_DATE.test(text) &&
    !Number.isNaN(day) &&
    // Date.parse rolls 2026-02-30 over into March: the calendar day must survive the round trip.
    new Date(day).toISOString().slice(0, 10) === text.slice(0, 10) &&
    !Number.isNaN(Date.parse(text));
  if (!valid) throw new Error(`${what} "${String(value)}" is no ISO date (2026-12-01, or a date-time with Z or an offset)`);
  return Date.parse(text);
}

function changelogUrl(value: unknown, version: string): string {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol)) throw new Error(`version ${version}: changelog "${String(value)}" is no http(s) URL`);
  return value as string;
}

/** The validated versions, oldest first. */
function checkedPolicies(options: VersioningOptions): VersionPolicy[] {
  const list = options?.versions;
  if (!Array.isArray(list) || !list.length) throw new Error('"versions" needs one or two versions');
  for (const { version } of list) {
    if (typeof version !== 'string' || !SEMVER.test(version)) throw new Error(`"${String(version)}" is no semantic version (major.minor.patch[-pre-release])`);
  }
  const majors = new Set(list.map((v) => majorOf(v.version)));
  if (majors.size > MAX_MAJORS) {
    throw new Error(`at most two major versions at once (the Zaken API design rules), got ${list.map((v) => v.version).join(', ')}`);
  }
  if (majors.size !== list.length) throw new Error(`one version per major (the major names the base path), got ${list.map((v) => v.version).join(', ')}`);
  const sorted = [...list].sort((a, b) => majorOf(a.version) - majorOf(b.version));
  const newest = sorted[sorted.length - 1];
  if (newest.deprecation) {
    throw new Error(`version ${newest.version} is the newest: a deprecation would leave its clients no version to move to`);
  }
  return sorted;
}

/** The response headers of a deprecated version (RFC 9745, RFC 8594). */
function deprecationHeaders(version: string, schedule: DeprecationSchedule): Record<string, string> {
  const deprecated = instant(schedule.deprecated, `version ${version}: deprecated`);
  const sunset = instant(schedule.sunset, `version ${version}: sunset`);
  if (sunset <= deprecated) throw new Error(`version ${version}: sunset ${schedule.sunset} must come after deprecated ${schedule.deprecated}`);
  return {
    // RFC 9745: a structured-field date, seconds since the epoch.
    Deprecation: `@${Math.floor(deprecated / 1000)}`,
    Sunset: new Date(sunset).toUTCString(),
    ...(schedule.changelog !== undefined ? { Link: `<${changelogUrl(schedule.changelog, version)}>; rel="deprecation"` } : {}),
  };
}

/** Marks every operation deprecated, declares the schedule's headers on every response, states the schedule in `info`. */
function documentDeprecation(document: Record<string, unknown>, version: string, schedule: DeprecationSchedule, successor: string): void {
  const headers: Record<string, unknown> = {
    Deprecation: {
      description: 'Het moment waarop deze versie verouderd is of wordt (RFC 9745), als `@<seconden sinds 1970-01-01T00:00:00Z>`.',
      schema: { type: 'string', example: '@1796083200' },
    },
    Sunset: {
      description: 'Na dit moment wordt deze versie niet meer aangeboden (RFC 8594, HTTP-datum).',
      schema: { type: 'string', example: 'Tue, 01 Jun 2027 00:00:00 GMT' },
    },
  };
  if (schedule.changelog !== undefined) {
    headers.Link = { description: 'De changelog-vermelding van de overstap: `<url>; rel="deprecation"`.', schema: { type: 'string' } };
  }
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, operation] of Object.entries(item)) {
      // A path item also holds `parameters`, `summary`, ...: only its operations are deprecated.
      if (!HTTP_METHODS.has(method)) continue;
      operation.deprecated = true;
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Record<string, unknown>>)) {
        if (!('$ref' in response)) response.headers = { ...(response.headers as object), ...headers };
      }
    }
  }
  const info = (document.info ??= {}) as Record<string, unknown>;
  const notice =
    `**Verouderd.** Versie ${version} is verouderd per ${schedule.deprecated} en wordt na ${schedule.sunset} niet meer aangeboden; ` +
    `stap over op versie ${successor}.` +
    (schedule.changelog !== undefined ? ` Wat er verandert: ${schedule.changelog}` : '');
  info.description = info.description ? `${String(info.description)}\n\n${notice}` : notice;
}

/**
 * The version policy of the Zaken API design rules: one or two majors side by side, each at its own
 * base path; the older one deprecated on a published schedule (`Deprecation`, `Sunset` and `Link`
 * headers, a deprecated OpenAPI document); per version, what its representations change.
 */
export function versioning(options: VersioningOptions): Plugin {
  checkOptions('versioning', versioningOptionsSchema, options);
  const serializers = new Map<string, NonNullable<VersionPolicy['serialize']>>();

  return {
    name: 'versioning',
    setup(api) {
      const policies = checkedPolicies(options);
      const successor = policies[policies.length - 1].version;
      const versions: ApiVersion[] = policies.map((policy) => {
        const { version, deprecation, serialize, document } = policy;
        if (serialize) serializers.set(version, serialize);
        return {
          version,
          // Every response of the version, also those no operation answers (404, 405, 415).
          headers: deprecation && deprecationHeaders(version, deprecation),
          document(doc) {
            if (deprecation) documentDeprecation(doc, version, deprecation, successor);
            document?.(doc);
          },
        };
      });
      api.setApiVersions(versions);
    },
    serialize(body, ctx) {
      return serializers.get(ctx.apiVersion)?.(body, ctx);
    },
  };
}
