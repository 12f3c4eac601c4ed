import { closest, ProblemError, validationError, type InvalidParam } from '../../src/plugin-api.js';
import { RELATIONS, type LocalKind } from './relations.js';
import { checkTree, type ExpandTree } from './tree.js';

/**
 * `fields` of `POST /zaken/_zoek` (zrc-029): which attributes of the zaken, and of the resources
 * expanded from them, the answer holds. Parsed into the expand tree it implies (checked by the expand
 * engine's rules, `relations.ts`) and a `Selection` that trims the expanded answer.
 */

/** The attributes of this registry's resources as the Zaken API 1.8.0 describes them (`Zaak`, `Status`, ... of its contract). */
export const ATTRIBUTES: Readonly<Record<LocalKind, readonly string[]>> = {
  zaak: [
    'url', 'uuid', 'identificatie', 'bronorganisatie', 'omschrijving', 'toelichting', 'zaaktype', 'registratiedatum',
    'verantwoordelijkeOrganisatie', 'startdatum', 'einddatum', 'einddatumGepland', 'uiterlijkeEinddatumAfdoening',
    'publicatiedatum', 'communicatiekanaal', 'productenOfDiensten', 'vertrouwelijkheidaanduiding', 'betalingsindicatie',
    'betalingsindicatieWeergave', 'laatsteBetaaldatum', 'zaakgeometrie', 'verlenging', 'opschorting', 'selectielijstklasse',
    'hoofdzaak', 'deelzaken', 'relevanteAndereZaken', 'eigenschappen', 'rollen', 'status', 'zaakinformatieobjecten',
    'zaakobjecten', 'kenmerken', 'archiefnominatie', 'archiefstatus', 'archiefactiedatum', 'resultaat',
    'opdrachtgevendeOrganisatie', 'processobjectaard', 'startdatumBewaartermijn', 'processobject',
  ],
  status: ['url', 'uuid', 'zaak', 'statustype', 'datumStatusGezet', 'statustoelichting', 'indicatieLaatstGezetteStatus', 'gezetdoor', 'zaakinformatieobjecten'],
  resultaat: ['url', 'uuid', 'zaak', 'resultaattype', 'toelichting'],
  rol: [
    'url', 'uuid', 'zaak', 'betrokkene', 'betrokkeneType', 'afwijkendeNaamBetrokkene', 'roltype', 'omschrijving',
    'omschrijvingGeneriek', 'roltoelichting', 'registratiedatum', 'indicatieMachtiging', 'contactpersoonRol', 'statussen',
    'betrokkeneIdentificatie',
  ],
  zaakeigenschap: ['url', 'uuid', 'zaak', 'eigenschap', 'naam', 'waarde'],
  zaakobject: [
    'url', 'uuid', 'zaak', 'object', 'zaakobjecttype', 'objectType', 'objectTypeOverige', 'objectTypeOverigeDefinitie',
    'relatieomschrijving', 'objectIdentificatie',
  ],
  zaakinformatieobject: ['url', 'uuid', 'informatieobject', 'zaak', 'aardRelatieWeergave', 'titel', 'beschrijving', 'registratiedatum', 'vernietigingsdatum', 'status'],
  zaakbesluit: ['url', 'uuid', 'besluit'],
};

/**
 * Group attributes (an object, or a list of objects) whose own attributes `fields` selects like a
 * resource's. Null: their attributes depend on the resource's type (`betrokkeneType`, `objectType`)
 * and are not checked.
 */
export const GROUPS: Readonly<Partial<Record<LocalKind, Readonly<Record<string, readonly string[] | null>>>>> = {
  zaak: {
    verlenging: ['reden', 'duur'],
    opschorting: ['indicatie', 'reden'],
    processobject: ['datumkenmerk', 'identificatie', 'objecttype', 'registratie'],
    kenmerken: ['kenmerk', 'bron'],
  },
  rol: { contactpersoonRol: ['emailadres', 'functie', 'telefoonnummer', 'naam'], betrokkeneIdentificatie: null },
  zaakobject: { objectTypeOverigeDefinitie: ['url', 'schema', 'objectData'], objectIdentificatie: null },
};

/** What one resource keeps: every attribute (`*`) or the named ones, each plainly or with a selection of its own. */
export interface Selection {
  all: boolean;
  /** In the order `fields` names them; null: the attribute as it is. */
  attributes: Map<string, Nested | null>;
}
interface Nested {
  selection: Selection;
  /** Expanded (its resources under `_expand`) rather than a group trimmed in place. */
  relation: boolean;
}

export interface ParsedFields {
  /** What the object entries expand (`status.statustype`), as `parseExpand` makes it of `expand`; checked. */
  tree: ExpandTree;
  selection: Selection;
  /** The zaak attributes the answer uses; undefined when it uses all (`*`). */
  zaakAttributes?: ReadonlySet<string>;
}

const WILDCARD = '*';
const emptySelection = (): Selection => ({ all: false, attributes: new Map() });

/** Where the parser stands: in a resource (of this registry or another API's) or in a group attribute. */
type Place = InResource | InGroup;
interface PlaceNames {
  /** The names allowed here; undefined: not checked (another API's resource, a typed group). */
  names?: readonly string[];
  /** The dotted path of attributes to here, for errors. */
  path: string;
}
interface InResource extends PlaceNames {
  at: 'resource';
  /** Its kind when it is this registry's; undefined for another API's. */
  kind?: LocalKind;
  /** What to expand in it. */
  node: ExpandTree;
}
interface InGroup extends PlaceNames {
  at: 'group';
}

/**
 * `fields` → the expand tree it implies, the selection and the zaak attributes it uses. Every name
 * is checked against its resource; all mistakes are answered at once, as one 400 (`invalid`) with an
 * `invalidParams` entry named `fields` per mistake, before anything is read. What can be expanded is
 * the expand engine's to decide (`checkTree`: an object on an attribute that links nothing is its
 * 404), its problems naming `fields`.
 */
export function parseFields(value: unknown): ParsedFields {
  const errors: InvalidParam[] = [];
  const tree: ExpandTree = new Map();
  const selection = emptySelection();
  const fail = (path: string, code: string, reason: string) => void errors.push({ name: 'fields', code, reason: path ? `${path}: ${reason}` : reason });

  const parseList = (list: unknown, place: Place, into: Selection) => {
    if (!Array.isArray(list) || !list.length) return fail(place.path, 'invalid', 'verwacht een niet-lege lijst van attribuutnamen en objecten.');
    for (const entry of list) {
      if (typeof entry === 'string') parseName(entry, place, into);
      else if (entry && typeof entry === 'object' && !Array.isArray(entry) && Object.keys(entry).length) {
        for (const [name, sub] of Object.entries(entry)) parseNested(name, sub, place, into);
      } else fail(place.path, 'invalid', `${JSON.stringify(entry)} is geen attribuutnaam of object met attribuutnamen.`);
    }
  };

  // `a.b.c` is short for `{ "a": [{ "b": ["c"] }] }`.
  const parseName = (name: string, place: Place, into: Selection) => {
    if (name === WILDCARD) return void (into.all = true);
    const dot = name.indexOf('.');
    if (dot > 0 && dot < name.length - 1) return parseNested(name.slice(0, dot), [name.slice(dot + 1)], place, into);
    if (!known(name, place)) return;
    if (!into.attributes.has(name)) into.attributes.set(name, null);
  };

  const known = (name: string, place: Place) => {
    if (!place.names || place.names.includes(name)) return true;
    const suggestion = closest(name, place.names);
    const where = place.at === 'resource' && place.kind ? place.kind : place.path;
    fail(joined(place.path, name), 'unknown-field', `${where} heeft geen attribuut ${name}${suggestion ? ` (bedoelt u ${suggestion}?)` : ''}.`);
    return false;
  };

  const parseNested = (name: string, list: unknown, place: Place, into: Selection) => {
    if (name === WILDCARD) return fail(place.path, 'invalid', `"*" staat voor alle attributen en heeft geen eigen attributen.`);
    if (!known(name, place)) return;
    const path = joined(place.path, name);
    if (place.at === 'group') {
      // Within a group only a group whose attributes are not checked has nested groups (an address in betrokkeneIdentificatie).
      if (place.names) return fail(path, 'invalid', `${name} heeft geen eigen attributen.`);
      return parseList(list, { at: 'group', path }, nestedOf(into, name, false));
    }
    const { kind } = place;
    const target = kind && Object.hasOwn(RELATIONS[kind], name) ? RELATIONS[kind][name].target : undefined;
    const groups = kind && GROUPS[kind];
    if (!target && groups && Object.hasOwn(groups, name)) {
      return parseList(list, { at: 'group', names: groups[name] ?? undefined, path }, nestedOf(into, name, false));
    }
    // A relation; in another API's resource any attribute (the engine checks it once fetched); else one `checkTree` refuses.
    let node = place.node.get(name);
    if (!node) place.node.set(name, (node = new Map()));
    const local = target === 'remote' ? undefined : target;
    parseList(list, { at: 'resource', kind: local, names: local && ATTRIBUTES[local], path, node }, nestedOf(into, name, true));
  };

  parseList(value, { at: 'resource', kind: 'zaak', names: ATTRIBUTES.zaak, path: '', node: tree }, selection);
  if (errors.length) throw validationError(errors);
  try {
    checkTree('zaak', tree);
  } catch (error) {
    throw namingFields(error);
  }
  return { tree, selection, zaakAttributes: selection.all ? undefined : new Set(selection.attributes.keys()) };
}

/** The contract's `fields` of `ZaakZoek`, its entries' two forms spelled out. */
export const FIELDS_SCHEMA = {
  type: 'array',
  description:
    'De elementen (fields) die worden teruggegeven in de repons conform het expand-mechanisme. Hierin betekent "*" dat alle elementen van een resource worden teruggegeven; een object noemt per attribuut (een relatie, die dan onder `_expand` wordt opgenomen, of een groep zoals `processobject`) de eigen elementen. <br><br> <b>Let op:</b> Het gebruik van het "fields" en "expand" element is mutual exclusive. Of je gebruikt de één of de ander maar nooit te gelijk.',
  items: { anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'array' } }] },
  example: ['url', 'identificatie', { zaaktype: ['omschrijving', { catalogus: ['domein'] }], status: ['datumStatusGezet', { statustype: ['omschrijving'] }], processobject: ['identificatie'] }],
};

/**
 * `fields` of a `_zoek` body, parsed; undefined without one. With `expand` as well (the body's, or
 * the query parameter): a 400 naming both (the standard has them mutually exclusive).
 */
export function searchFields(body: Record<string, unknown> | undefined, query: Record<string, unknown>): ParsedFields | undefined {
  if (body?.fields === undefined) return undefined;
  if (body.expand !== undefined || query.expand !== undefined) {
    const reason = 'fields en expand sluiten elkaar uit: gebruik één van beide.';
    throw validationError([
      { name: 'fields', code: 'fields-and-expand', reason },
      { name: 'expand', code: 'fields-and-expand', reason },
    ]);
  }
  return parseFields(body.fields);
}

/** The expand engine's problem about what `fields` expands, naming `fields` (where the mistake is) instead of `expand`. */
export function namingFields(error: unknown): unknown {
  if (!(error instanceof ProblemError) || !error.invalidParams) return error;
  return new ProblemError(error.code, { detail: error.message, invalidParams: error.invalidParams.map((param) => ({ ...param, name: 'fields' })) });
}

const joined = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** The selection of a nested attribute, merged when `fields` names it twice. */
function nestedOf(into: Selection, name: string, relation: boolean): Selection {
  let nested = into.attributes.get(name);
  if (!nested) into.attributes.set(name, (nested = { selection: emptySelection(), relation }));
  return nested.selection;
}

type Resource = Record<string, unknown>;

/** A resource trimmed to its selection, `_expand` (of the selected relations) last. */
export function project(resource: Resource, selection: Selection): Resource {
  const trimmed: Resource = {};
  if (selection.all) for (const key of Object.keys(resource)) if (key !== '_expand') trimmed[key] = resource[key];
  let expanded: Resource | undefined;
  for (const [name, nested] of selection.attributes) {
    if (!(name in resource)) continue;
    const value = resource[name];
    if (!nested) trimmed[name] = value;
    else if (nested.relation) {
      trimmed[name] = value;
      // The engine expands every resource holding the attribute, an empty link as {} or [].
      (expanded ??= {})[name] = each((resource._expand as Resource)[name], nested.selection);
    } else trimmed[name] = value === null || typeof value !== 'object' ? value : each(value, nested.selection);
  }
  if (expanded) trimmed._expand = expanded;
  return trimmed;
}

const each = (value: unknown, selection: Selection) =>
  Array.isArray(value) ? value.map((item: Resource) => project(item, selection)) : project(value as Resource, selection);

/** The answer (one zaak, or a page of them) with its zaken trimmed. */
export function projectAnswer(body: unknown, selection: Selection): unknown {
  const page = body as { results?: unknown };
  if (Array.isArray(page.results)) return { ...page, results: page.results.map((zaak: Resource) => project(zaak, selection)) };
  return project(body as Resource, selection);
}
