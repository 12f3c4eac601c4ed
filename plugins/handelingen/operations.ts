import {
  ProblemError,
  referenceError,
  validationError,
  type AccessSubject,
  type InvalidParam,
  type JsonSchema,
  type Operation,
  type RequestContext,
} from '../../src/plugin-api.js';
import { AANMAKEN, BIJWERKEN, GEFORCEERD, REGISTREREN_ALSO, UPDATE_ALSO, checkZaakState, requireOneOf, requireParts, statusRule } from './checks.js';
import { documentation, type HandelingName } from './openapi.js';
import { runPart, withZaak } from './parts.js';

const part: JsonSchema = { type: 'object' };
const parts: JsonSchema = { type: 'array', items: part };
/** The handelingen's request bodies as validated before the parts: each part is checked by its own operation. */
const bodyOf = (names: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties: names });

const VERTROUWELIJKHEIDAANDUIDINGEN = new Set(['openbaar', 'beperkt_openbaar', 'intern', 'zaakvertrouwelijk', 'vertrouwelijk', 'confidentieel', 'geheim', 'zeer_geheim']);

/** The zaak as it is after every part: with its status, rollen, einddatum and archive fields (shaped by `representZaken`). */
async function readBack(ctx: RequestContext, zaakUrl: string): Promise<Record<string, unknown>> {
  const zaak = await ctx.registry.zaken.find(ctx, zaakUrl, { relations: true });
  if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
  return zaak;
}

/** The parts of a list (`rollen`, `zaakobjecten`, ...), one after the other, each named by its index. */
async function eachPart(ctx: RequestContext, name: string, items: unknown, operationId: string, zaakUrl: string): Promise<Record<string, unknown>[]> {
  const written: Record<string, unknown>[] = [];
  for (const [index, item] of ((items as unknown[] | undefined) ?? []).entries()) {
    written.push(await runPart(ctx, `${name}.${index}`, operationId, { body: withZaak(item, zaakUrl) }));
  }
  return written;
}

function answer(ctx: RequestContext, status: number, body: Record<string, unknown>): void {
  ctx.result = body;
  ctx.response.status = status;
  ctx.response.body = body;
}

/**
 * `POST /zaak_registreren`: a zaak with its first status, rollen, zaakinformatieobjecten and
 * zaakobjecten. Scopes: `zaken.aanmaken & (zaken.bijwerken | zaken.geforceerd-bijwerken)`, on the
 * zaaktype and vertrouwelijkheidaanduiding of the zaak in the body.
 */
export function zaakRegistreren(): Operation {
  const subjects = new WeakMap<RequestContext, AccessSubject>();
  return {
    id: 'registreerzaak_create',
    method: 'post',
    path: '/zaak_registreren',
    action: 'zaak_registreren',
    write: true,
    scopes: [AANMAKEN],
    accessSubjects: (ctx) => {
      const subject = subjects.get(ctx);
      return subject ? [subject] : [];
    },
    requestBody: bodyOf({ zaak: part, rollen: parts, status: part, zaakinformatieobjecten: parts, zaakobjecten: parts }),
    // The zaak as it will be, as the zaak's own create decides it: authorization comes before any part is checked.
    async load(ctx) {
      const zaak = ctx.body?.zaak as Record<string, unknown> | undefined;
      if (typeof zaak?.zaaktype !== 'string') return;
      let vertrouwelijkheidaanduiding = zaak.vertrouwelijkheidaanduiding;
      if (typeof vertrouwelijkheidaanduiding !== 'string' || !VERTROUWELIJKHEIDAANDUIDINGEN.has(vertrouwelijkheidaanduiding)) {
        try {
          vertrouwelijkheidaanduiding = (await ctx.registry.catalog.zaaktype(zaak.zaaktype)).vertrouwelijkheidaanduiding;
        } catch (error) {
          throw referenceError('zaak.zaaktype', error);
        }
      }
      subjects.set(ctx, { zaaktype: zaak.zaaktype, vertrouwelijkheidaanduiding: String(vertrouwelijkheidaanduiding) });
    },
    async prepare(ctx) {
      const subject = subjects.get(ctx);
      if (subject) requireOneOf(ctx, subject, REGISTREREN_ALSO);
      requireParts(ctx.body, ['zaak', 'rollen', 'status']);
    },
    validate: (ctx) => statusRule(ctx, subjects.get(ctx)?.zaaktype, ctx.body!.status as Record<string, unknown>, 'resultaat-does-not-exist'),
    async execute(ctx) {
      const body = ctx.body!;
      // Open Zaak's order: the status before the rollen (a first status may be read as "the zaak is complete").
      const zaak = await runPart(ctx, 'zaak', 'zaak_create', { body: body.zaak as Record<string, unknown> });
      const url = String(zaak.url);
      const status = await runPart(ctx, 'status', 'status_create', { body: withZaak(body.status, url) });
      const rollen = await eachPart(ctx, 'rollen', body.rollen, 'rol_create', url);
      const zaakinformatieobjecten = await eachPart(ctx, 'zaakinformatieobjecten', body.zaakinformatieobjecten, 'zaakinformatieobject_create', url);
      const zaakobjecten = await eachPart(ctx, 'zaakobjecten', body.zaakobjecten, 'zaakobject_create', url);
      answer(ctx, 201, { zaak: await readBack(ctx, url), rollen, zaakinformatieobjecten, zaakobjecten, status });
    },
    openapi: documentation('zaak_registreren'),
  };
}

/** What differs between the four handelingen on an existing zaak. */
interface ZaakUpdate {
  id: string;
  name: Exclude<HandelingName, 'zaak_registreren'>;
  body: Record<string, JsonSchema>;
  required: string[];
  /** The zaak's partial update: the fields of `zaak` this handeling writes. */
  zaakFields(body: Record<string, unknown>): Record<string, unknown>;
  /** Its rules before the transaction, all reported at once. */
  rules(ctx: RequestContext, zaak: Record<string, unknown>): Promise<InvalidParam[]>;
  /** The parts after the zaak's partial update; answers them under their keys. */
  write(ctx: RequestContext, zaakUrl: string): Promise<Record<string, unknown>>;
}

/**
 * A handeling on an existing zaak: `POST /<name>/{uuid}`. Scopes: `(zaken.bijwerken |
 * zaken.geforceerd-bijwerken) & (zaken.aanmaken | zaken.statussen.toevoegen | zaken.heropenen)` on the
 * stored zaak; then the state of the zaak (closed, a status already set), checked again on the locked
 * zaak inside the transaction. The zaak's partial update is always the first part.
 */
function zaakUpdate(handeling: ZaakUpdate): Operation {
  async function zaakAt(ctx: RequestContext, lock: boolean): Promise<Record<string, unknown>> {
    // Locked with its relations: the zaak's partial update, the first part, reads it so in the same transaction.
    const zaak = await ctx.registry.zaken.find(ctx, ctx.params.uuid, { lock, relations: lock });
    if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    return zaak;
  }
  return {
    id: handeling.id,
    method: 'post',
    path: `/${handeling.name}/{uuid}`,
    action: handeling.name,
    write: true,
    scopes: [BIJWERKEN, GEFORCEERD],
    requestBody: bodyOf(handeling.body),
    async load(ctx) {
      ctx.zaak = await zaakAt(ctx, false);
    },
    async prepare(ctx) {
      requireOneOf(ctx, ctx.zaak as unknown as AccessSubject, UPDATE_ALSO);
      await checkZaakState(ctx, ctx.zaak!);
      requireParts(ctx.body, handeling.required);
    },
    async validate(ctx) {
      return handeling.rules(ctx, ctx.zaak!);
    },
    // The zaak once, at the start: its state as it is now, and every part after this waits for no one.
    async lock(ctx) {
      ctx.zaak = await zaakAt(ctx, true);
      await checkZaakState(ctx, ctx.zaak);
    },
    async execute(ctx) {
      const url = `${ctx.baseUrl}/zaken/${ctx.params.uuid}`;
      await runPart(ctx, 'zaak', 'zaak_partial_update', { params: { uuid: ctx.params.uuid }, body: handeling.zaakFields(ctx.body!) });
      const written = await handeling.write(ctx, url);
      answer(ctx, 200, { zaak: await readBack(ctx, url), ...written });
    },
    openapi: documentation(handeling.name),
  };
}

const statusPart = (ctx: RequestContext, zaakUrl: string) => runPart(ctx, 'status', 'status_create', { body: withZaak(ctx.body!.status, zaakUrl) });

/** The status's own required fields, reported with the handeling's other rules (the part checks the rest). */
function statusPresence(status: Record<string, unknown> | undefined): InvalidParam[] {
  if (!status || typeof status !== 'object') return [];
  return ['statustype', 'datumStatusGezet']
    .filter((field) => status[field] === undefined || status[field] === null)
    .map((field) => ({ name: `status.${field}`, code: 'required', reason: 'Dit veld is vereist.' }));
}

/** `zaak_opschorten` and `zaak_verlengen`: one gegevensgroep of the zaak, and a status that does not close it. */
function groepWithStatus(id: string, name: 'zaak_opschorten' | 'zaak_verlengen', groep: 'opschorting' | 'verlenging'): Operation {
  return zaakUpdate({
    id,
    name,
    body: { zaak: part, status: part },
    required: ['zaak', 'status'],
    // The other fields of the zaak are read-only here, as in Open Zaak: left out.
    zaakFields: (body) => ({ [groep]: (body.zaak as Record<string, unknown>)[groep] }),
    async rules(ctx, zaak) {
      const body = ctx.body!;
      const sent = (body.zaak as Record<string, unknown>)[groep];
      const missing: InvalidParam[] = sent === undefined || sent === null ? [{ name: `zaak.${groep}`, code: 'required', reason: 'Dit veld is vereist.' }] : [];
      const status = body.status as Record<string, unknown>;
      return [...missing, ...statusPresence(status), ...(await statusRule(ctx, zaak.zaaktype, status, 'eindstatus-not-allowed'))];
    },
    write: async (ctx, url) => ({ status: await statusPart(ctx, url) }),
  });
}

export const zaakOpschorten = () => groepWithStatus('zaakopschorten', 'zaak_opschorten', 'opschorting');
export const zaakVerlengen = () => groepWithStatus('zaakverlengen', 'zaak_verlengen', 'verlenging');

/** `zaak_afsluiten`: the zaak's partial update, its resultaat and its eindstatus, which closes it. */
export function zaakAfsluiten(): Operation {
  return zaakUpdate({
    id: 'zaakafsluiten',
    name: 'zaak_afsluiten',
    body: { zaak: part, resultaat: part, status: part },
    required: ['zaak', 'resultaat', 'status'],
    zaakFields: (body) => body.zaak as Record<string, unknown>,
    rules: (ctx, zaak) => statusRule(ctx, zaak.zaaktype, ctx.body!.status as Record<string, unknown>, 'eindstatus-required'),
    async write(ctx, url) {
      const resultaat = await runPart(ctx, 'resultaat', 'resultaat_create', { body: withZaak(ctx.body!.resultaat, url) });
      return { resultaat, status: await statusPart(ctx, url) };
    },
  });
}

/** `zaak_bijwerken`: the zaak's partial update, a status that does not close it, and the zaak's rollen replaced. */
export function zaakBijwerken(): Operation {
  return zaakUpdate({
    id: 'zaakbijwerken',
    name: 'zaak_bijwerken',
    body: { zaak: part, status: part, rollen: parts },
    required: ['status'],
    zaakFields: (body) => (body.zaak as Record<string, unknown> | undefined) ?? {},
    rules: (ctx, zaak) => statusRule(ctx, zaak.zaaktype, ctx.body!.status as Record<string, unknown>, 'eindstatus-not-allowed'),
    async write(ctx, url) {
      const status = await statusPart(ctx, url);
      const rollen = ctx.body!.rollen === undefined ? [] : await replaceRollen(ctx, url, ctx.body!.rollen as Record<string, unknown>[]);
      return { rollen, status };
    },
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The zaak's rollen become `items`: a rol of the zaak not listed is destroyed (first, oldest first),
 * then each item in order updates the rol its `uuid` names (a full PUT) or, without one, is created.
 * A `uuid` listed twice, of another zaak's rol or of none is refused before anything changes.
 */
async function replaceRollen(ctx: RequestContext, zaakUrl: string, items: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  const existing = await ctx.registry.zaken.records(ctx, 'rol', zaakUrl);
  const own = new Set(existing.map((rol) => String(rol.uuid)));
  const listed = items.map((item) => (item.uuid === undefined || item.uuid === null ? undefined : String(item.uuid).toLowerCase()));
  const elsewhere = listed.filter((uuid): uuid is string => !!uuid && UUID.test(uuid) && !own.has(uuid));
  const found = new Set(elsewhere.length ? ((await ctx.tx!('rol').whereIn('uuid', elsewhere).select('uuid')) as { uuid: string }[]).map((row) => row.uuid) : []);
  const errors: InvalidParam[] = [];
  const seen = new Set<string>();
  listed.forEach((uuid, index) => {
    if (uuid === undefined) return;
    const name = `rollen.${index}.uuid`;
    if (seen.has(uuid)) errors.push({ name, code: 'duplicate', reason: 'Deze rol staat meer dan eens in de lijst.' });
    else if (found.has(uuid)) errors.push({ name, code: 'missing-relation', reason: 'Deze rol hoort bij een andere zaak.' });
    else if (!own.has(uuid)) errors.push({ name, code: 'does-not-exist', reason: 'Deze rol bestaat niet.' });
    seen.add(uuid);
  });
  if (errors.length) throw validationError(errors);
  for (const rol of existing) {
    if (!seen.has(String(rol.uuid))) await runPart(ctx, 'rollen', 'rol_destroy', { params: { uuid: String(rol.uuid) } });
  }
  const written: Record<string, unknown>[] = [];
  for (const [index, { uuid: _uuid, ...item }] of items.entries()) {
    const uuid = listed[index];
    const body = withZaak(item, zaakUrl);
    written.push(await runPart(ctx, `rollen.${index}`, uuid ? 'rol_update' : 'rol_create', uuid ? { params: { uuid }, body } : { body }));
  }
  return written;
}
