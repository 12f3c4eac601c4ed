import type { JsonSchema } from './operation.js';
import { settingsProblems, type SettingsProblem } from './schema/settings.js';

/**
 * Options passed in code that cannot be used: every problem at once, each under its path
 * (`authorization.clients.demo`), as the CLI reports its file's.
 */
export class OptionsError extends Error {
  constructor(
    readonly owner: string,
    readonly problems: SettingsProblem[],
  ) {
    const lines = problems.map(({ path, message }) => `${optionPath(path)}${/^(is|must|has) /.test(message) ? ' ' : ': '}${message.replace(/^is not a known key/, 'is not a known option')}`);
    super(lines.length === 1 ? `${owner}: ${lines[0]}` : `${owner}: ${lines.length} problems with its options:\n${lines.map((line) => `  - ${line}`).join('\n')}`);
    this.name = 'OptionsError';
  }
}

/** A JSON Pointer as code writes the path: `/plugins/0/name` → `plugins[0].name`. */
export function optionPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '') || 'options';
}

/**
 * Checks a factory's options against their JSON Schema (the one the config file uses for them) and
 * throws an `OptionsError` naming every problem: unknown names (with the allowed ones), wrong types,
 * missing required options. `owner` names the factory in the message, e.g. `zrcRules`.
 */
export function checkOptions(owner: string, schema: JsonSchema, options: unknown, extraProblems: SettingsProblem[] = []): void {
  const problems = [...settingsProblems(schema, options ?? {}), ...extraProblems];
  if (problems.length) throw new OptionsError(owner, problems);
}

/**
 * The JSON Schema of a factory's options: an object of exactly these properties. The type argument
 * ties it to the options' interface, so an option the schema does not describe, or a property the
 * interface does not have, fails to compile: `optionsSchema<CachingOptions>({ maxEntries: {…}, vary: {…} })`.
 */
export function optionsSchema<Options extends object>(
  properties: { [Name in keyof Required<Options>]: JsonSchema },
  details: { description?: string; required?: (keyof Options & string)[] } = {},
): JsonSchema {
  return {
    type: 'object',
    ...(details.description ? { description: details.description } : {}),
    additionalProperties: false,
    ...(details.required ? { required: details.required } : {}),
    properties,
  };
}
