import type { JsonSchema } from '../operation.js';
import type { InvalidParam } from '../problem.js';
import { VERTROUWELIJKHEIDAANDUIDING } from '../resources/shared/enums.js';
import { validate } from '../schema/validate.js';
import type { Applicatie, AuthorizationSource } from './types.js';

/**
 * An `Applicatie` as the Autorisaties API answers it. Other keys of that API (`url`,
 * `componentWeergave`, `informatieobjecttype`, ...) are allowed so its JSON can be pasted as is.
 */
const APPLICATIE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['clientIds', 'label', 'heeftAlleAutorisaties', 'autorisaties'],
  properties: {
    clientIds: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
    label: { type: 'string', minLength: 1 },
    heeftAlleAutorisaties: { type: 'boolean' },
    autorisaties: {
      type: 'array',
      items: {
        type: 'object',
        required: ['component', 'scopes'],
        properties: {
          component: { type: 'string', minLength: 1 },
          scopes: { type: 'array', items: { type: 'string', minLength: 1 } },
          zaaktype: { type: 'string', format: 'uri', minLength: 1 },
          maxVertrouwelijkheidaanduiding: { type: 'string', enum: [...VERTROUWELIJKHEIDAANDUIDING] },
        },
      },
    },
  },
};

const APPLICATIES_SCHEMA: JsonSchema = { type: 'array', items: APPLICATIE_SCHEMA };

/** What the schema cannot say: a `zrc` authorization names its zaaktype and maximum confidentiality; a client id has one application. */
function consistencyProblems(applications: Applicatie[], name: string): InvalidParam[] {
  const problems: InvalidParam[] = [];
  const owner = new Map<string, string>();
  applications.forEach((application, index) => {
    application.autorisaties.forEach((autorisatie, i) => {
      if (autorisatie.component === 'zrc' && (!autorisatie.zaaktype || !autorisatie.maxVertrouwelijkheidaanduiding)) {
        problems.push({ name: `${name}.${index}.autorisaties.${i}`, code: 'required', reason: 'Een zrc-autorisatie heeft zaaktype en maxVertrouwelijkheidaanduiding.' });
      }
    });
    for (const clientId of application.clientIds) {
      const other = owner.get(clientId);
      if (other !== undefined) problems.push({ name: `${name}.${index}.clientIds`, code: 'unique', reason: `Client id "${clientId}" staat ook bij applicatie "${other}".` });
      owner.set(clientId, application.label);
    }
  });
  return problems;
}

/** Everything wrong with a list of applications (names start with `name`); empty when it is fine. */
export function applicationProblems(applications: unknown, name = 'applications'): InvalidParam[] {
  const invalid = validate(APPLICATIES_SCHEMA, applications, name);
  return invalid.length ? invalid : consistencyProblems(applications as Applicatie[], name);
}

/** Checks a list of applications; throws with every problem listed. */
export function checkApplications(applications: unknown, name = 'applications'): Applicatie[] {
  const problems = applicationProblems(applications, name);
  if (problems.length) throw new Error(`invalid applications:\n${problems.map((p) => `  - ${p.name}: ${p.reason} (${p.code})`).join('\n')}`);
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
