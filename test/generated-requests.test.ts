import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { RSIN, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { listen, stop } from './helpers/zgw-servers.js';

/**
 * Generated malformed requests over every operation of the served OpenAPI document: wrong types,
 * broken formats, unknown and repeated parameters, NULs, lone surrogates, deep nesting, bodies that
 * are no JSON (or not what their headers say), junk tokens, identifiers that name nothing, and valid
 * requests with one thing wrong, so that many reach the business rules and the database. None may be
 * answered with a 5xx, and every error must be problem+json. The sequence is fixed by the seed:
 * FUZZ_SEED=<n> FUZZ_REQUESTS=<n> repeat or widen a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 18);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);
/** Fresh fixtures this often, as the generated DELETEs remove them. */
const FIXTURES_EVERY = 300;
const SECRET = 'generated-secret-of-at-least-32-bytes';

/** mulberry32: 32 bits of state, enough to make every run of a seed the same. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  constructor(private readonly next: () => number) {}
  chance(p: number): boolean {
    return this.next() < p;
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
}

type Schema = Record<string, any>;

interface GeneratedOperation {
  method: string;
  path: string;
  query: { name: string; schema: Schema }[];
  headers: string[];
  body?: Schema;
}

interface GeneratedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What it was generated from, for the failure report. */
  label: string;
}

function applications(zaaktype: string): Applicatie[] {
  return [
    { clientIds: ['alles'], label: 'alles', heeftAlleAutorisaties: true, autorisaties: [] },
    {
      clientIds: ['beperkt'],
      label: 'beperkt',
      heeftAlleAutorisaties: false,
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen', 'zaken.bijwerken', 'zaken.aanmaken'], zaaktype, maxVertrouwelijkheidaanduiding: 'intern' }],
    },
  ];
}

const STRANGE_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x\ud800',
  '\udfff',
  '😀',
  'é'.repeat(3),
  '%zz',
  '%',
  '../..',
  "' or 1=1 --",
  '$1',
  '\\',
  '{}',
  '[]',
  'null',
  'true',
  '-1',
  '0',
  '1e309',
  '9'.repeat(40),
  'x'.repeat(2000),
  'ZAAK-2024-0000000001',
  '2024-02-30',
  '2024-13-01',
  '2024-03-01T25:61:00Z',
  // An offset PostgreSQL refuses (it stores at most 15:59 either way).
  '2024-03-01T10:00:00+23:00',
  'P1D',
  // A valid duration longer than its column.
  `P${'1'.repeat(70)}D`,
  'P',
  '-P1Y',
  'PT9999999999999999H',
  'http://',
  'http://elders.test/api/v1/x/00000000-0000-4000-8000-000000000000',
  'ftp://x/y',
  'http://user:pw@catalogus.test/x',
  'javascript:alert(1)',
  'not a url',
];

const STRANGE_NUMBERS = [0, -1, 1, 1.5, -0.5, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, Number.MAX_SAFE_INTEGER];

/** Any JSON value: what a wrong type looks like. */
function anyJson(r: Random, depth = 0): unknown {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0:
      return r.pick(STRANGE_STRINGS);
    case 1:
      return r.pick(STRANGE_NUMBERS);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return {};
    case 4:
      return Array.from({ length: r.int(3) }, () => anyJson(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(3) }, (_, i) => [r.pick(['a', 'url', 'type', '', '\u0000', `k${i}`]), anyJson(r, depth + 1)]));
  }
}

/** Objects in objects, `levels` deep (past the depth limit when it is more than 32). */
function deep(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** The types of the Catalogi API stand-in (`remoteRegistry`). */
function typesOf(origin: string) {
  const catalogi = `${origin}/catalogi`;
  return {
    zaaktype: `${catalogi}/zaaktypen/1`,
    zaaktypeGeheim: `${catalogi}/zaaktypen/2`,
    statustypeStart: `${catalogi}/statustypen/1`,
    statustypeEind: `${catalogi}/statustypen/2`,
    resultaattype: `${catalogi}/resultaattypen/1`,
    roltypeInitiator: `${catalogi}/roltypen/1`,
    roltypeBehandelaar: `${catalogi}/roltypen/2`,
    eigenschap: `${catalogi}/eigenschappen/1`,
    informatieobjecttype: `${catalogi}/informatieobjecttypen/1`,
  };
}

interface World {
  base: string;
  remote: string;
  types: ReturnType<typeof typesOf>;
  /** Uuids of existing resources per collection path (`/rollen`, `/zaken/{zaak_uuid}/zaakeigenschappen`). */
  uuids: Map<string, string[]>;
}

/** Values for a schema: mostly valid, sometimes not, so that requests get past validation into the rules. */
function valueFor(r: Random, schema: Schema | undefined, components: Record<string, Schema>, world: World, depth: number): unknown {
  if (!schema) return anyJson(r);
  if (schema.$ref) return valueFor(r, components[String(schema.$ref).split('/').pop()!], components, world, depth);
  if (r.chance(0.05)) return anyJson(r);
  if (r.chance(0.01)) return deep(r.pick([31, 40, 200]));
  if (schema.nullable && r.chance(0.1)) return null;
  if (schema.allOf) return valueFor(r, Object.assign({}, ...schema.allOf.map((s: Schema) => (s.$ref ? components[String(s.$ref).split('/').pop()!] : s)), { allOf: undefined }), components, world, depth);
  if (schema.oneOf || schema.anyOf) return valueFor(r, r.pick(schema.oneOf ?? schema.anyOf), components, world, depth);
  if (schema.enum) return r.chance(0.9) ? r.pick(schema.enum) : r.pick(STRANGE_STRINGS);
  switch (schema.type) {
    case 'object': {
      if (depth > 5) return {};
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if (property.readOnly && !r.chance(0.05)) continue;
        if ((schema.required ?? []).includes(name) ? r.chance(0.95) : r.chance(0.5)) out[name] = valueFor(r, property, components, world, depth + 1);
      }
      if (schema.additionalProperties || !schema.properties) for (let i = r.int(3); i > 0; i--) out[r.pick(['a', 'b', 'sleutel', 'x\u0000', '\ud800'])] = anyJson(r);
      return out;
    }
    case 'array':
      return Array.from({ length: r.chance(0.05) ? 50 : r.int(3) }, () => valueFor(r, schema.items, components, world, depth + 1));
    case 'integer':
      return r.chance(0.7) ? r.int(100) : r.pick(STRANGE_NUMBERS);
    case 'number':
      return r.chance(0.7) ? r.int(1000) / 7 : r.pick(STRANGE_NUMBERS);
    case 'boolean':
      return r.chance(0.9) ? r.chance(0.5) : r.pick(['true', 1, null]);
    default:
      return stringFor(r, schema, world);
  }
}

function stringFor(r: Random, schema: Schema, world: World): string {
  if (r.chance(0.1)) return r.pick(STRANGE_STRINGS);
  const n = r.int(1000);
  switch (schema.format) {
    case 'uri':
      return urlFor(r, world);
    case 'uuid':
      return r.chance(0.5) ? r.pick([...world.uuids.values()].flat().concat('00000000-0000-4000-8000-000000000000')) : 'geen-uuid';
    case 'date':
      return r.chance(0.8) ? `20${10 + r.int(20)}-0${1 + r.int(9)}-${10 + r.int(19)}` : r.pick(['2024-02-30', '0000-01-01', '9999-12-31', '2024-1-1']);
    case 'date-time':
      return r.chance(0.8) ? `2024-0${1 + r.int(9)}-1${r.int(9)}T1${r.int(9)}:00:00${r.pick(['Z', '+02:00', '', '.123456Z'])}` : r.pick(['2024-03-01T24:00:00Z', '2024-03-01 10:00', '0001-01-01T00:00:00Z']);
    case 'duration':
      return r.pick(['P1D', 'P2M', 'P1Y2M3DT4H', 'PT0S', 'P', 'P1.5D', '-P1D', 'P99999999999Y']);
    case 'email':
      return r.pick(['a@b.nl', 'geen-email', '@', `${'x'.repeat(300)}@b.nl`]);
  }
  if (schema['x-rsin']) return r.pick([RSIN, '000000000', '12345678', 'abcdefghi', '517439944']);
  const text = r.pick(['tekst', 'Ë', 'ab', String(n), 'x'.repeat(n)]);
  return schema.maxLength && r.chance(0.1) ? 'y'.repeat(schema.maxLength + 1) : text;
}

function urlFor(r: Random, world: World): string {
  const local = (collection: string) => {
    const uuids = world.uuids.get(collection) ?? [];
    return `${world.base}${collection}/${uuids.length ? r.pick(uuids) : '00000000-0000-4000-8000-000000000000'}`;
  };
  switch (r.int(9)) {
    case 0:
    case 1:
      return local('/zaken');
    case 2:
      return r.chance(0.8) ? r.pick(Object.values(world.types)) : `${world.remote}/catalogi/typen/${r.int(8)}`;
    case 3:
      return local(r.pick(['/rollen', '/statussen', '/resultaten', '/zaakobjecten']));
    case 4:
      return `${world.remote}/${r.pick(['documenten', 'besluiten', 'verzoeken', 'contactmomenten', 'objecten'])}/${r.int(20)}`;
    case 5:
      return `${world.remote}/junk/${r.int(16)}`;
    case 6:
      return `${world.base}/zaken/${r.pick(['geen-uuid', '', '00000000-0000-4000-8000-000000000000/extra'])}`;
    default:
      return r.pick(STRANGE_STRINGS);
  }
}

/** Valid bodies to spoil one field of: requests that get past the schema into the rules and the database. */
function template(component: string, world: World, r: Random): Record<string, unknown> | undefined {
  const zaken = world.uuids.get('/zaken') ?? [];
  const zaak = `${world.base}/zaken/${zaken.length ? r.pick(zaken) : '00000000-0000-4000-8000-000000000000'}`;
  const remote = (kind: string) => `${world.remote}/${kind}/${r.int(20)}`;
  const types = world.types;
  const bodies: Record<string, Record<string, unknown>> = {
    Zaak: zaakInput({ zaaktype: types.zaaktype, vertrouwelijkheidaanduiding: r.pick(['openbaar', 'intern', 'geheim']), hoofdzaak: r.chance(0.2) ? zaak : undefined }),
    PatchedZaak: r.pick([
      { toelichting: 'x' },
      { archiefstatus: 'gearchiveerd', archiefnominatie: 'vernietigen', archiefactiedatum: '2030-01-01' },
      { hoofdzaak: zaak },
      { relevanteAndereZaken: [{ url: zaak, aardRelatie: 'vervolg' }] },
      { zaakgeometrie: { type: 'Point', coordinates: [5.1, 52.1] } },
      { einddatumGepland: '2025-01-01', verlenging: { reden: 'r', duur: 'P10D' }, opschorting: { indicatie: true, reden: 'r' } },
    ]),
    ZaakZoek: r.pick([{ zaaktype: types.zaaktype }, { zaakgeometrie: { within: { type: 'Polygon', coordinates: [[[4, 52], [6, 52], [6, 53], [4, 52]]] } } }, { uuid__in: zaken.slice(0, 3) }, { expand: 'status' }]),
    Status: { zaak, statustype: r.pick([types.statustypeStart, types.statustypeEind]), datumStatusGezet: '2024-03-02T10:00:00Z' },
    Resultaat: { zaak, resultaattype: types.resultaattype },
    Rol: {
      zaak,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: r.pick([types.roltypeInitiator, types.roltypeBehandelaar]),
      roltoelichting: 'x',
      betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsaanduiding: 'v', verblijfsadres: { aoaIdentificatie: '1', wplWoonplaatsNaam: 'A', gorOpenbareRuimteNaam: 'B', aoaHuisnummer: 1 } },
    },
    ZaakObject: r.pick([
      { zaak, objectType: 'pand', object: remote('objecten') },
      { zaak, objectType: 'overige', objectTypeOverige: 'iets', objectIdentificatie: { overigeData: { a: [1, { b: 'c' }] } } },
      { zaak, objectType: 'adres', objectIdentificatie: { identificatie: '1', wplWoonplaatsNaam: 'A', gorOpenbareRuimteNaam: 'B', huisnummer: 1 } },
    ]),
    PatchedZaakObject: { relatieomschrijving: 'x' },
    KlantContact: { zaak, datumtijd: '2024-03-01T09:00:00Z', kanaal: 'telefoon' },
    ZaakInformatieObject: { zaak, informatieobject: remote('documenten'), titel: 't' },
    ZaakContactMoment: { zaak, contactmoment: remote('contactmomenten') },
    ZaakVerzoek: { zaak, verzoek: remote('verzoeken') },
    ZaakBesluit: { besluit: remote('besluiten') },
    ZaakEigenschap: { zaak, eigenschap: types.eigenschap, waarde: 'w' },
    PatchedZaakEigenschap: { waarde: 'v' },
    PatchedResultaat: { toelichting: 't' },
    ZaakNotitieRequest: { gerelateerdAan: zaak, onderwerp: 'o', tekst: 't', notitieType: r.pick(['intern', 'extern']), status: r.pick(['concept', 'definitief']) },
    PatchedZaakNotitieRequest: { tekst: 'anders' },
  };
  const body = bodies[component];
  return body && { ...body };
}

/** One field of a valid body made wrong, removed, or a stranger added. */
function spoil(r: Random, body: Record<string, unknown>, schema: Schema | undefined, components: Record<string, Schema>, world: World): Record<string, unknown> {
  const keys = Object.keys(body);
  switch (r.int(5)) {
    case 0:
      if (keys.length) delete body[r.pick(keys)];
      break;
    case 1:
      if (keys.length) body[r.pick(keys)] = anyJson(r);
      break;
    case 2: {
      const properties = Object.keys(schema?.properties ?? {});
      if (properties.length) {
        const name = r.pick(properties);
        body[name] = valueFor(r, schema!.properties[name], components, world, 1);
      }
      break;
    }
    case 3:
      body[r.pick(['onbekend', '__proto__', 'constructor', 'url', 'uuid'])] = anyJson(r);
      break;
    default:
      // Untouched: a valid request, so the registry keeps changing under the generated ones.
      break;
  }
  return body;
}

const RAW_BODIES = ['{', '[1,2', '{"a":1}{', '"\\ud800"', 'null', '123', '"tekst"', '[]', '1e999', '{"a":1,"a":2}', '\u0000', '{"x":"\\u0000"}', `${'['.repeat(5000)}${']'.repeat(5000)}`, ''];

function operationsOf(document: Schema): GeneratedOperation[] {
  const operations: GeneratedOperation[] = [];
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const [method, operation] of Object.entries<Schema>(item)) {
      if (!['get', 'head', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const parameters: Schema[] = operation.parameters ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema })),
        headers: parameters.filter((p) => p.in === 'header').map((p) => p.name),
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

/** The collection a path parameter names a member of: `/zaken/{zaak_uuid}/zaakeigenschappen/{uuid}` → its uuid from `/zaken/{zaak_uuid}/zaakeigenschappen`. */
function pathFor(r: Random, template: string, world: World): string {
  return template.replace(/\{(\w+)\}/g, (_, _name: string, offset: number) => {
    const known = world.uuids.get(template.slice(0, offset - 1)) ?? [];
    let value: string;
    if (r.chance(0.75) && known.length) value = r.pick(known);
    else if (r.chance(0.5)) value = '00000000-0000-4000-8000-000000000000';
    else value = r.pick(['%zz', '%', '%00', 'abc', '..', '😀', 'x'.repeat(300), 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA', '%E0%A4%A', '00000000-0000-4000-8000-000000000000%20', '%2e%2e']);
    // Percent-encodings as they are, broken ones included; anything else encoded.
    return value.includes('%') ? value : encode(value);
  });
}

/** Percent-encoded; a lone surrogate (no URL can hold one) as the bytes a client could send for it. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return `%ED%A0%80${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ''))}`;
  }
}

function queryFor(r: Random, operation: GeneratedOperation, components: Record<string, Schema>, world: World): string {
  const pairs: [string, string][] = [];
  for (const parameter of operation.query) {
    if (!r.chance(0.15)) continue;
    const value = valueFor(r, parameter.schema, components, world, 1);
    const text = Array.isArray(value) ? value.map(String).join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
    pairs.push([parameter.name, text]);
    if (r.chance(0.05)) pairs.push([parameter.name, r.pick(STRANGE_STRINGS)]);
  }
  if (r.chance(0.05)) pairs.push([r.pick(['onbekend', '', 'page[0]', '__proto__', 'a\u0000']), r.pick(STRANGE_STRINGS)]);
  let query = pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join('&');
  if (r.chance(0.03)) query += r.pick(['&%zz=1', '&a=%', '&&&', '&=x', '&page=1&page=%ff']);
  return query ? `?${query}` : '';
}

function generate(r: Random, operations: GeneratedOperation[], components: Record<string, Schema>, world: World, tokens: Record<string, string>): GeneratedRequest {
  const operation = r.pick(operations);
  let method = operation.method;
  if (r.chance(0.02)) method = r.pick(['OPTIONS', 'PATCH', 'PUT', 'DELETE', 'POST']);
  let path = pathFor(r, operation.path, world) + queryFor(r, operation, components, world);
  if (r.chance(0.02)) path = r.pick([`${path}/`, path.replace('/', '//'), path.toUpperCase(), `${path}/%2e%2e/x`]);
  const headers: Record<string, string> = {};
  const who = r.int(20);
  if (who < 16) headers.authorization = `Bearer ${tokens.alles}`;
  else if (who < 18) headers.authorization = `Bearer ${tokens.beperkt}`;
  else if (who < 19) headers.authorization = r.pick(['Bearer', 'Bearer ', 'Basic YTpi', 'Bearer a.b.c', `Bearer ${tokens.alles.slice(0, -3)}xyz`, `Bearer ${'a'.repeat(5000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJjbGllbnRfaWQiOiJhbGxlcyJ9.']);
  if (operation.headers.includes('If-None-Match') && r.chance(0.2)) headers['if-none-match'] = r.pick(['*', '"x"', 'W/"x"', '"a", "b"', '', '\u00ff']);
  if (r.chance(0.03)) headers['accept-crs'] = r.pick(['EPSG:4326', 'EPSG:28992', 'x']);
  let body: Buffer | undefined;
  let label = `${method} ${path}`;
  if (operation.body && ['POST', 'PUT', 'PATCH'].includes(method)) {
    const component = String(operation.body.$ref ?? '').split('/').pop()!;
    const schema = operation.body.$ref ? components[component] : operation.body;
    let text: string;
    const kind = r.int(20);
    if (kind < 8) {
      const base = template(component, world, r);
      text = JSON.stringify(base ? spoil(r, base, schema, components, world) : valueFor(r, schema, components, world, 0));
    } else if (kind < 17) {
      text = JSON.stringify(valueFor(r, schema, components, world, 0));
    } else {
      text = r.pick(RAW_BODIES);
    }
    label += ` ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
    body = Buffer.from(text);
    headers['content-type'] = r.chance(0.93)
      ? 'application/json'
      : r.pick(['text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/problem+json', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '']);
    if (r.chance(0.03)) {
      const encoding = r.pick(['gzip', 'deflate', 'br', 'x', 'gzip, gzip']);
      headers['content-encoding'] = encoding;
      if (encoding === 'gzip' && r.chance(0.5)) body = gzipSync(body);
    }
    if (r.chance(0.01)) body = Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d]);
  } else if (r.chance(0.02)) {
    body = Buffer.from('{"onverwacht": true}');
    headers['content-type'] = 'application/json';
  }
  return { method, path, headers, body, label };
}

/**
 * An allowed host with a Catalogi API (`/catalogi/...`) and documents, besluiten, verzoeken and
 * contactmomenten that answer as such; `/catalogi/typen/<n>` are types with every field a type needs,
 * of the wrong kind; `/junk/<n>` answers what a broken registry might: 404, 500, no JSON, the wrong
 * shape, nesting beyond any stack, more than the size cap. The same URL always answers the same.
 */
async function remoteRegistry() {
  return listen(async (req: IncomingMessage, res: ServerResponse) => {
    for await (const chunk of req) void chunk;
    const origin = `http://${req.headers.host}`;
    const url = `${origin}${req.url}`;
    const types = typesOf(origin);
    const segments = (req.url ?? '').split('/').slice(1);
    const [kind, id = '0'] = segments[0] === 'catalogi' ? segments.slice(1) : segments;
    const n = Number.parseInt(id, 10) || 0;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(req.method === 'DELETE' ? 204 : 201, req.method === 'DELETE' ? '' : { url });
    const zaaktype = types.zaaktype;
    switch (kind) {
      case 'zaaktypen':
        return json(200, {
          url,
          vertrouwelijkheidaanduiding: n === 2 ? 'geheim' : 'openbaar',
          concept: false,
          productenOfDiensten: [],
          statustypen: [types.statustypeStart, types.statustypeEind],
          resultaattypen: [types.resultaattype],
          roltypen: [types.roltypeInitiator, types.roltypeBehandelaar],
          eigenschappen: [types.eigenschap],
          informatieobjecttypen: [types.informatieobjecttype],
        });
      case 'statustypen':
        return json(200, { url, zaaktype, volgnummer: n, omschrijving: `status ${n}` });
      case 'resultaattypen':
        return json(200, { url, zaaktype, omschrijving: 'Toegekend', archiefnominatie: 'vernietigen', archiefactietermijn: 'P10Y', brondatumArchiefprocedure: { afleidingswijze: 'afgehandeld' } });
      case 'roltypen':
        return json(200, { url, zaaktype, omschrijving: `rol ${n}`, omschrijvingGeneriek: n === 1 ? 'initiator' : 'behandelaar' });
      case 'eigenschappen':
        return json(200, { url, zaaktype, naam: 'kenteken' });
      case 'informatieobjecttypen':
        return json(200, { url, omschrijving: 'Brief', vertrouwelijkheidaanduiding: 'openbaar' });
      case 'typen':
        return json(200, [
          { url: 5, zaaktype: [], volgnummer: 'x', vertrouwelijkheidaanduiding: {}, statustypen: 'abc', resultaattypen: 7, roltypen: null, eigenschappen: {}, informatieobjecttypen: 'x', omschrijvingGeneriek: 3, naam: [], omschrijving: null },
          { url, zaaktype, vertrouwelijkheidaanduiding: 'onbekend', statustypen: [5, null, {}], volgnummer: 'twee', omschrijvingGeneriek: 'geen', naam: 'n', omschrijving: 'o' },
          { url, zaaktype: `${origin}/junk/1`, volgnummer: 1e308, omschrijvingGeneriek: 'initiator', naam: 'n', omschrijving: 'o', archiefactietermijn: 5, archiefnominatie: {}, brondatumArchiefprocedure: 'x' },
          { url, zaaktype: url, volgnummer: -1, omschrijvingGeneriek: 'zaakcoordinator', naam: '', omschrijving: '', brondatumArchiefprocedure: { afleidingswijze: 'eigenschap', datumkenmerk: 5 } },
        ][n % 4]);
      case 'documenten':
        return json(200, { url, informatieobjecttype: types.informatieobjecttype, indicatieGebruiksrecht: n % 2 ? true : null, status: n % 3 ? 'gearchiveerd' : 'definitief', bronorganisatie: RSIN, titel: 't' });
      case 'besluiten':
      case 'verzoeken':
      case 'contactmomenten':
      case 'objecten':
        return json(200, { url });
      case 'junk':
        switch (n % 8) {
          case 0:
            return json(404, { detail: 'Niet gevonden' });
          case 1:
            return json(500, 'stuk');
          case 2:
            return json(200, 'geen json');
          case 3:
            return json(200, '[]');
          case 4:
            return json(200, 'null');
          case 5:
            return json(200, `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`);
          case 6:
            return json(200, { url: 5, vertrouwelijkheidaanduiding: { a: 1 }, status: [], indicatieGebruiksrecht: 'ja' });
          default:
            return json(200, { data: 'x'.repeat(1_100_000) });
        }
      default:
        return json(404, {});
    }
  });
}

const postgres = BACKENDS.filter((backend) => backend.name === 'PostgreSQL');
for (const backend of postgres) {
  describe(`Generated malformed requests over every operation of the OpenAPI document, on ${backend.name}`, function () {
    this.timeout(180_000);
    let api: TestServer;
    let remote: Awaited<ReturnType<typeof remoteRegistry>>;
    const tokens: Record<string, string> = {};

    before(async () => {
      remote = await remoteRegistry();
      const apps = applications(typesOf(remote.origin).zaaktype);
      const clients = Object.fromEntries(apps.map((a) => [a.clientIds[0], SECRET]));
      api = await startRegistry(await backend.open(), {
        preset: 'standard',
        authorization: { clients, source: staticAuthorizations(apps) },
        // The Catalogi API of the remote stand-in, over HTTP.
        catalog: undefined,
        remote: { allowedHosts: [new URL(remote.origin).host], timeoutMs: 2000 },
        // Deliveries to the remote stand-in happen in the background and do not matter here.
        outbox: { dispatch: false },
      });
      for (const clientId of ['alles', 'beperkt']) tokens[clientId] = await signZgwJwt(clientId, SECRET);
    });
    after(async () => {
      await api?.close();
      if (remote) await stop(remote.server);
    });

    const send = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { authorization: `Bearer ${tokens.alles}`, ...(init.headers as object) } });

    /** A zaak of every confidentiality with one record of each kind, and what exists now, per collection. */
    async function fixtures(world: World): Promise<void> {
      const types = world.types;
      for (const vertrouwelijkheidaanduiding of ['openbaar', 'intern', 'geheim']) {
        const zaak = (await send('/zaken', { method: 'POST', json: zaakInput({ zaaktype: types.zaaktype, vertrouwelijkheidaanduiding }) })).body;
        const z = { zaak: zaak.url };
        await send('/statussen', { method: 'POST', json: { ...z, statustype: types.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } });
        await send('/resultaten', { method: 'POST', json: { ...z, resultaattype: types.resultaattype } });
        await send('/rollen', { method: 'POST', json: { ...z, betrokkeneType: 'medewerker', roltype: types.roltypeBehandelaar, roltoelichting: 'x', betrokkene: 'http://m.test/1' } });
        await send('/zaakobjecten', { method: 'POST', json: { ...z, objectType: 'pand', object: `${world.remote}/objecten/1` } });
        await send('/zaakinformatieobjecten', { method: 'POST', json: { ...z, informatieobject: `${world.remote}/documenten/1` } });
        await send('/klantcontacten', { method: 'POST', json: { ...z, datumtijd: '2024-03-01T09:00:00Z' } });
        await send('/zaakcontactmomenten', { method: 'POST', json: { ...z, contactmoment: `${world.remote}/contactmomenten/1` } });
        await send('/zaakverzoeken', { method: 'POST', json: { ...z, verzoek: `${world.remote}/verzoeken/1` } });
        await send(`/zaken/${zaak.uuid}/zaakeigenschappen`, { method: 'POST', json: { ...z, eigenschap: types.eigenschap, waarde: 'a' } });
        await send(`/zaken/${zaak.uuid}/besluiten`, { method: 'POST', json: { besluit: `${world.remote}/besluiten/1` } });
        await send('/zaaknotities', { method: 'POST', json: { gerelateerdAan: zaak.url, onderwerp: 'o', tekst: 't' } });
      }
      world.uuids.clear();
      const zaken: string[] = (await send('/zaken?pageSize=100')).body.results.map((z: any) => z.uuid);
      world.uuids.set('/zaken', zaken);
      for (const collection of ['/statussen', '/resultaten', '/rollen', '/zaakobjecten', '/zaakinformatieobjecten', '/klantcontacten', '/zaakcontactmomenten', '/zaakverzoeken', '/zaaknotities']) {
        const body = (await send(collection)).body;
        // A ZaakNotitie shows no uuid of its own: it ends its url.
        world.uuids.set(collection, (Array.isArray(body) ? body : body.results).map((record: any) => record.uuid ?? record.url.split('/').at(-1)));
      }
      for (const nested of ['zaakeigenschappen', 'besluiten', 'audittrail']) {
        const uuids = (await Promise.all(zaken.slice(-3).map(async (uuid) => (await send(`/zaken/${uuid}/${nested}`)).body.map((r: any) => r.uuid)))).flat();
        world.uuids.set(`/zaken/{zaak_uuid}/${nested}`, uuids);
      }
    }

    it(`answers ${REQUESTS} of them (seed ${SEED}) without a 5xx, every error as problem+json`, async () => {
      const document = (await api.request('/openapi.json')).body;
      const operations = operationsOf(document);
      const components = document.components.schemas as Record<string, Schema>;
      const world: World = { base: api.base, remote: remote.origin, types: typesOf(remote.origin), uuids: new Map() };
      const r = new Random(prng(SEED));
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      const reached = new Set<string>();
      for (let i = 0; i < REQUESTS; i++) {
        if (i % FIXTURES_EVERY === 0) await fixtures(world);
        const request = generate(r, operations, components, world, tokens);
        const response = await fetch(api.base + request.path, {
          method: request.method,
          headers: request.headers,
          body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status < 300) reached.add(`${request.method} ${request.path.split('?')[0].replace(/[0-9a-f-]{36}/g, '{uuid}')}`);
        const problem = (() => {
          if (response.status >= 500) return `answered ${response.status}`;
          if (response.status < 400) return undefined;
          if (response.headers.get('content-type') !== 'application/problem+json') return `error ${response.status} as ${response.headers.get('content-type')}`;
          if (request.method === 'HEAD') return undefined;
          const body = JSON.parse(text);
          if (body.status !== response.status || typeof body.code !== 'string' || typeof body.title !== 'string') return `error ${response.status} is no problem: ${text}`;
          return undefined;
        })();
        if (problem) failures.push(`#${i} ${request.label.slice(0, 600)} → ${problem} ${text.slice(0, 300)}`);
      }
      const summary = `statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${REQUESTS} failed (seed ${SEED}); ${summary}`);
      // The generator reaches past validation: many writes and reads succeed, over much of the API.
      const successes = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
      assert.ok(successes > REQUESTS / 10, `${successes} successes: ${summary}`);
      assert.ok(reached.size > 30, `successful operations: ${[...reached].sort().join(', ')}`);
    });
  });
}
