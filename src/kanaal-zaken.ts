import type { ResourceChange } from './plugin-types.js';

/** The table and its lists frozen: a plugin cannot change what another one publishes. */
function frozenTable(table: Record<string, NotificationAction[]>): Readonly<Record<string, readonly NotificationAction[]>> {
  for (const actions of Object.values(table)) Object.freeze(actions);
  return Object.freeze(table);
}

/** The `actie` of a classic notification: `update` stands for both PUT and PATCH (`partial_update`). */
export type NotificationAction = 'create' | 'update' | 'destroy';

/**
 * Which changes the registry announces as classic notifications on kanaal `zaken`: per `resource`, the
 * actions published. The resources and actions the Zaken API contract names, a rol's `update` (1.8.0
 * serves PUT on rollen, and a changed rol must reach subscribers) and zaaknotitie (published like the
 * zaak's other records). The `notifications` plugin sends these; the `cloudevents` plugin's `nrc`
 * family gives one event for each. Use {@link isPublishedOnKanaalZaken} to test a change.
 */
export const KANAAL_ZAKEN_PUBLISHED: Readonly<Record<string, readonly NotificationAction[]>> = frozenTable({
  zaak: ['create', 'update', 'destroy'],
  status: ['create'],
  zaakobject: ['create', 'update', 'destroy'],
  zaakinformatieobject: ['create'],
  zaakeigenschap: ['create', 'update', 'destroy'],
  klantcontact: ['create'],
  rol: ['create', 'update', 'destroy'],
  resultaat: ['create', 'update', 'destroy'],
  zaakbesluit: ['create'],
  zaakcontactmoment: ['create'],
  zaakverzoek: ['create'],
  zaaknotitie: ['create', 'update', 'destroy'],
});

/** The kenmerken of a notification on kanaal `zaken`: the zaak's fields subscribers filter on. */
export const KANAAL_ZAKEN_KENMERKEN = Object.freeze(['bronorganisatie', 'zaaktype', 'vertrouwelijkheidaanduiding'] as const);

/**
 * Whether a change is announced on kanaal `zaken` ({@link KANAAL_ZAKEN_PUBLISHED}, a PATCH counting as
 * `update`). Records removed because their zaak was destroyed (`source` `cascade`) are not: the zaak's
 * own `destroy` tells subscribers. Nor are zaken a migration imports (`source` `import`): they existed
 * before, and their subscribers were told by the registry they came from.
 */
export function isPublishedOnKanaalZaken(change: Pick<ResourceChange, 'resource' | 'action' | 'source'>): boolean {
  if (change.source === 'cascade' || change.source === 'import') return false;
  const action = change.action === 'partial_update' ? 'update' : change.action;
  return Object.hasOwn(KANAAL_ZAKEN_PUBLISHED, change.resource) && KANAAL_ZAKEN_PUBLISHED[change.resource].includes(action);
}
