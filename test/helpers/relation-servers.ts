import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { answer, answerInvalid, listenWithModes, type Mode, type RecordedRequest } from './zgw-servers.js';

/** Where each registry keeps its main resources and its relations to zaken and besluiten (the 1.x APIs). */
const KINDS = {
  documenten: { resources: 'enkelvoudiginformatieobjecten', relations: 'objectinformatieobjecten', field: 'informatieobject' },
  verzoeken: { resources: 'verzoeken', relations: 'objectverzoeken', field: 'verzoek' },
  contactmomenten: { resources: 'contactmomenten', relations: 'objectcontactmomenten', field: 'contactmoment' },
} as const;

export type RelationRegistryKind = keyof typeof KINDS;

/** A stored relation: `object` (a zaak or besluit) to the registry's own resource in the kind's field. */
export interface Relation {
  url: string;
  object: string;
  objectType: string;
  [field: string]: string;
}

export interface RelationRegistryServer {
  /** Base URL, `http://127.0.0.1:<port>/<kind>/api/v1`. */
  url: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  host: string;
  /** Creates a main resource and returns its URL (GET on it answers 200 with its JSON `{url, ...fields}`). */
  resource(fields?: Record<string, unknown>): string;
  /** The relations currently stored (what a test asserts on); change them and the next request sees the change. */
  relations: Relation[];
  requests: RecordedRequest[];
  readonly mode: Mode;
  setMode(mode: Mode): Promise<void>;
  close(): Promise<void>;
}

const OBJECT_TYPES = ['zaak', 'besluit'];

/**
 * A Documenten, Verzoeken or Contactmomenten API on 127.0.0.1: its resources (GET) and its relation
 * collection (list with filters as a bare array, create, retrieve, delete), validated like the real one.
 */
export async function startRelationRegistry(kind: RelationRegistryKind): Promise<RelationRegistryServer> {
  const { resources, relations, field } = KINDS[kind];
  const path = `/${kind}/api/v1`;
  const stored = new Map<string, Record<string, unknown>>();
  const requests: RecordedRequest[] = [];
  const modal = await listenWithModes(requests, (req, res, { method, body }) => {
    const url = new URL(req.url ?? '', modal.origin);
    const own = modal.origin + url.pathname;
    if (method === 'GET' && stored.has(own)) return answer(res, 200, stored.get(own));
    if (url.pathname === `${path}/${relations}`) {
      if (method === 'GET') {
        const object = url.searchParams.get('object');
        const target = url.searchParams.get(field);
        return answer(res, 200, state.relations.filter((r) => (object === null || r.object === object) && (target === null || r[field] === target)));
      }
      if (method === 'POST') return create(res, (body ?? {}) as Record<string, unknown>);
    }
    const relation = state.relations.find((r) => r.url === own);
    if (relation && method === 'GET') return answer(res, 200, relation);
    if (relation && method === 'DELETE') {
      state.relations = state.relations.filter((r) => r !== relation);
      return answer(res, 204);
    }
    answer(res, 404, { detail: 'Niet gevonden.' });
  });
  const base = modal.origin + path;

  function create(res: ServerResponse, input: Record<string, unknown>): void {
    const missing = ['object', 'objectType', field].filter((key) => typeof input[key] !== 'string' || !input[key]);
    if (missing.length) return answerInvalid(res, missing.map((name) => ({ name, code: 'required' })));
    if (!OBJECT_TYPES.includes(input.objectType as string)) return answerInvalid(res, [{ name: 'objectType', code: 'invalid_choice' }]);
    if (state.relations.some((r) => r.object === input.object && r[field] === input[field])) {
      return answerInvalid(res, [{ name: 'nonFieldErrors', code: 'unique' }]);
    }
    const relation: Relation = { url: `${base}/${relations}/${randomUUID()}`, object: input.object as string, objectType: input.objectType as string, [field]: input[field] as string };
    state.relations.push(relation);
    answer(res, 201, relation);
  }

  const state: RelationRegistryServer = {
    url: base,
    origin: modal.origin,
    host: modal.host,
    resource(fields = {}) {
      const url = `${base}/${resources}/${randomUUID()}`;
      stored.set(url, { url, ...(kind === 'documenten' ? enkelvoudigInformatieobject(stored.size + 1) : {}), ...fields });
      return url;
    },
    relations: [],
    requests,
    get mode() {
      return modal.mode;
    },
    setMode: modal.setMode,
    close: modal.close,
  };
  return state;
}

/** The required fields of a Documenten API enkelvoudiginformatieobject, so a client's schema checks pass. */
function enkelvoudigInformatieobject(n: number): Record<string, unknown> {
  return {
    identificatie: `DOCUMENT-${n}`,
    bronorganisatie: '002220647',
    informatieobjecttype: 'https://catalogi.test/catalogi/api/v1/informatieobjecttypen/00000000-0000-4000-8000-000000000001',
    titel: `Document ${n}`,
    vertrouwelijkheidaanduiding: 'openbaar',
    status: null,
    indicatieGebruiksrecht: null,
  };
}
