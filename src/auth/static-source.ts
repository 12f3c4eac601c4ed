import configSchema from '../../config.schema.json' with { type: 'json' };
import { formatProblems, settingsProblems, type SettingsProblem } from '../schema/settings.js';
import type { Applicatie, AuthorizationSource } from './types.js';

/** A list of `Applicatie`, as the Autorisaties API answers them (the config file's schema for one). */
const APPLICATIES_SCHEMA = { type: 'array', items: configSchema.definitions.applicatie };

/** What the schema cannot say: a `zrc` authorization names its zaaktype and maximum confidentiality; a client id has one application. */
function consistencyProblems(applications: Applicatie[], base: string): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const owner = new Map<string, string>();
  applications.forEach((application, index) => {
    application.autorisaties.forEach((autorisatie, i) => {
      if (autorisatie.component === 'zrc' && (!autorisatie.zaaktype || !autorisatie.maxVertrouwelijkheidaanduiding)) {
        problems.push({ path: `${base}/${index}/autorisaties/${i}`, message: 'a zrc autorisatie needs zaaktype and maxVertrouwelijkheidaanduiding' });
      }
    });
    for (const clientId of application.clientIds) {
      const other = owner.get(clientId);
      if (other !== undefined) problems.push({ path: `${base}/${index}/clientIds`, message: `client id "${clientId}" is also in application "${other}"` });
      owner.set(clientId, application.label);
    }
  });
  return problems;
}

/** Everything wrong with a list of applications (paths start with `base`); empty when it is fine. */
export function applicationProblems(applications: unknown, base = '/applications'): SettingsProblem[] {
  const invalid = settingsProblems(APPLICATIES_SCHEMA, applications, base);
  return invalid.length ? invalid : consistencyProblems(applications as Applicatie[], base);
}

/** Checks a list of applications; throws with every problem listed. */
export function checkApplications(applications: unknown, base = '/applications'): Applicatie[] {
  const problems = applicationProblems(applications, base);
  if (problems.length) throw new Error(`invalid applications:\n${formatProblems(problems)}`);
  return applications as Applicatie[];
}

/** Applications from the configuration: fixed for the life of the registry. */
export function staticAuthorizations(applications: Applicatie[]): AuthorizationSource {
  const byClientId = new Map<string, Applicatie>();
  for (const application of checkApplications(applications)) {
    for (const clientId of application.clientIds) byClientId.set(clientId, application);
  }
  return {
    async applicationFor(clientId) {
      return byClientId.get(clientId);
    },
    // Nothing is cached: the configuration is the source.
    invalidate() {},
  };
}
