import { checkOptions, optionsSchema, deliveryFailure, invalidParam, RemoteError, type OutboxDelivery, type Plugin, type RegistryServices, type ResourceChange } from '../../src/plugin-api.js';

/** A zaak's link to a resource of another registry, mirrored there as an object relation. */
interface RelationKind {
  /** The rule of the standard that asks for it. */
  rule: string;
  /** The field holding the other registry's resource URL; also the relation's field there. */
  field: string;
  /** The relation collection in the other registry. */
  collection: string;
}

export const RELATIONS = {
  zaakinformatieobject: { rule: 'zrc-005', field: 'informatieobject', collection: 'objectinformatieobjecten' },
  zaakverzoek: { rule: 'zrc-024', field: 'verzoek', collection: 'objectverzoeken' },
  zaakcontactmoment: { rule: 'zrc-025', field: 'contactmoment', collection: 'objectcontactmomenten' },
} satisfies Record<string, RelationKind>;

export type SyncedRelation = keyof typeof RELATIONS;

export interface RegistrySyncOptions {
  /** The relations to keep in step (default all three). */
  relations?: SyncedRelation[];
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.registry-sync`. */
export const registrySyncOptionsSchema = optionsSchema<RegistrySyncOptions>({
  relations: { type: 'array', items: { enum: Object.keys(RELATIONS) }, description: 'The relations to keep in step (default all three).' },
}, { description: 'Object relations in the Documenten, Verzoeken and Contactmomenten APIs (zrc-005, zrc-024, zrc-025; plugins/registry-sync/README.md); in the standard preset.' });

/** What one delivery does: make sure the relation exists, or make sure it is gone. */
interface SyncPayload extends Record<string, unknown> {
  op: 'link' | 'unlink';
  /** e.g. `https://drc.example.nl/api/v1/objectinformatieobjecten` */
  collection: string;
  field: string;
  resource: string;
  object: string;
}

const KIND = 'registry-sync';

/**
 * The base URL of the registry that hosts a resource: its URL without the last two segments
 * (`…/api/v1/enkelvoudiginformatieobjecten/{uuid}` → `…/api/v1`).
 */
export function registryBase(resource: string): string {
  const url = new URL(resource);
  const segments = url.pathname.replace(/\/+$/, '').split('/');
  return `${url.origin}${segments.slice(0, -2).join('/')}`;
}

/**
 * zrc-005, zrc-024, zrc-025: a zaak's documents, verzoeken and contactmomenten are mirrored as
 * object relations in the registries that hold them. Each change is enqueued in the transaction
 * that makes it, and delivered after commit by the outbox: retried until the other registry has it.
 */
export function registrySync(options: RegistrySyncOptions = {}): Plugin {
  checkOptions('registrySync', registrySyncOptionsSchema, options);
  const synced = new Set<string>(options.relations ?? Object.keys(RELATIONS));
  let services: RegistryServices;

  function payload(op: SyncPayload['op'], kind: RelationKind, resource: string, object: string): SyncPayload {
    return { op, collection: `${registryBase(resource)}/${kind.collection}`, field: kind.field, resource, object };
  }

  /** The deliveries of one change: link the new pair, unlink the old one, both when a link moved. */
  function deliveries(change: ResourceChange, kind: RelationKind): SyncPayload[] {
    const pair = (record: Record<string, unknown> | null) =>
      record && typeof record[kind.field] === 'string' && record[kind.field] ? { resource: String(record[kind.field]), object: String(record.zaak) } : undefined;
    const before = pair(change.before);
    const after = pair(change.after);
    const out: SyncPayload[] = [];
    if (before && (!after || before.resource !== after.resource || before.object !== after.object)) {
      out.push(payload('unlink', kind, before.resource, before.object));
    }
    // An update that keeps the pair still makes sure the relation is there (it repairs one removed by hand).
    if (after) out.push(payload('link', kind, after.resource, after.object));
    return out;
  }

  async function deliver({ payload, signal }: OutboxDelivery): Promise<void> {
    const { op, collection, field, resource, object } = payload as SyncPayload;
    const remote = services.remote;
    try {
      const query = `${collection}?object=${encodeURIComponent(object)}&${field}=${encodeURIComponent(resource)}`;
      const found = await remote.getJson<unknown>(query, { signal });
      // A bare list (Documenten API 1.x), or a paginated one.
      const existing = (Array.isArray(found) ? found : ((found as { results?: unknown[] })?.results ?? [])) as { url?: string }[];
      if (op === 'link') {
        if (!existing.length) await remote.sendJson('POST', collection, { [field]: resource, object, objectType: 'zaak' }, { signal });
        return;
      }
      for (const relation of existing) {
        if (!relation.url) continue;
        try {
          await remote.sendJson('DELETE', relation.url, undefined, { signal });
        } catch (error) {
          // Gone already (a retry after a lost answer, or removed by hand): that is what we wanted.
          if (!(error instanceof RemoteError && error.status === 404)) throw error;
        }
      }
    } catch (error) {
      throw deliveryFailure(error);
    }
  }

  return {
    name: 'registry-sync',
    setup(api) {
      services = api.registry;
      api.addDeliveryHandler(KIND, deliver);
    },
    async resourceChanged(change) {
      // An import brings relations that the other registries have already.
      if (change.source === 'import' || !synced.has(change.resource)) return;
      const kind = RELATIONS[change.resource as SyncedRelation];
      const reachable: SyncPayload[] = [];
      for (const delivery of deliveries(change, kind)) {
        if (services.remote.isAllowed(delivery.resource)) reachable.push(delivery);
        // A relation that cannot be kept in step is refused, unless it is going away anyway.
        else if (delivery.op === 'link') throw invalidParam(kind.field, 'bad-url', `${delivery.resource}: deze host is niet toegestaan.`);
        else services.log.warn(`registry-sync: not removing the relation of ${delivery.resource} (${kind.rule}): host not allowed`);
      }
      await services.outbox.enqueue(
        change.tx,
        reachable.map((d) => ({ kind: KIND, target: new URL(d.collection).host, key: `${d.object} ${d.resource}`, payload: d })),
      );
    },
  };
}
