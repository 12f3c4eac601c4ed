import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadContract } from '../scripts/contract.js';
import { pgliteStorage } from '../src/index.js';
import { compareWithContract, type Difference } from './helpers/contract-diff.js';
import { startRegistry, type TestServer } from './helpers/registry.js';

const CONTRACT = loadContract();
const DEVIATIONS_DOC = new URL('../docs/adr-deviations.md', import.meta.url);
const SECTION = '## Deviations from the Zaken API 1.8.0 contract';

/** One row of the deviations table: every combination of its places and properties differs exactly so. */
interface Deviation {
  where: string[];
  properties: string[];
  difference: string;
  why: string;
}

/** The table of docs/adr-deviations.md's contract section: the one list of deliberate differences. */
function listedDeviations(): Deviation[] {
  const text = readFileSync(DEVIATIONS_DOC, 'utf8');
  const start = text.indexOf(SECTION);
  assert.ok(start >= 0, `docs/adr-deviations.md has a section "${SECTION}"`);
  // Up to the next section: the tables after it (the choices where the standard is silent) are no property differences.
  const end = text.indexOf('\n## ', start + SECTION.length);
  const rows = text
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  const cells = (row: string) => row.slice(1, -1).split(' | ').map((cell) => cell.trim());
  const names = (cell: string) => cell.split(', ').map((name) => name.replace(/^`|`$/g, ''));
  return rows.map((row) => {
    const [where, properties, difference, why] = cells(row);
    return { where: names(where), properties: names(properties), difference, why };
  });
}

const covers = (deviation: Deviation, d: Difference) => deviation.where.includes(d.where) && deviation.properties.includes(d.property) && deviation.difference === d.difference;
const line = (d: Difference) => `${d.where} | ${d.property} | ${d.difference}`;

let api: TestServer;
let served: any;
before(async () => {
  api = await startRegistry(await pgliteStorage({ dataDir: 'memory' }), { preset: 'standard' });
  served = (await api.request('/openapi.json')).body;
});
after(async () => api?.close());

describe('The served document against the Zaken API 1.8.0 contract', () => {
  it('serves version 1.8.0 in info.version and API-Version', async () => {
    assert.equal(CONTRACT.info.version, '1.8.0');
    assert.equal(served.info.version, '1.8.0');
    assert.equal((await api.request('/zaken')).headers.get('api-version'), '1.8.0');
  });

  it('differs from the contract, operation by operation and property by property, only as docs/adr-deviations.md lists', () => {
    const deviations = listedDeviations();
    for (const deviation of deviations) assert.ok(deviation.why, `${deviation.where.join(', ')} ${deviation.properties.join(', ')}: says why`);
    const differences = compareWithContract(CONTRACT, served);
    const unlisted = differences.filter((d) => !deviations.some((deviation) => covers(deviation, d)));
    const gone = deviations.flatMap((deviation) =>
      deviation.where.flatMap((where) =>
        deviation.properties
          .map((property) => ({ where, property, difference: deviation.difference }))
          .filter((listed) => !differences.some((d) => line(d) === line(listed))),
      ),
    );
    const report = (title: string, lines: string[]) => `${title}:\n  ${lines.join('\n  ')}`;
    assert.deepEqual(unlisted.map(line), [], report('differences from the contract that docs/adr-deviations.md does not list', unlisted.map(line)));
    assert.deepEqual(gone.map(line), [], report('deviations docs/adr-deviations.md lists that no longer occur', gone.map(line)));
  });

  it('serves the 1.8.0 changes that come through the schemas', () => {
    const schemas = served.components.schemas;
    assert.equal(schemas.RolMedewerker.properties.identificatie.maxLength, 254);
    assert.deepEqual(schemas.TerreinGebouwdObjectAdres.required.sort(), ['aoaHuisnummer', 'gorOpenbareRuimteNaam', 'wplWoonplaatsNaam']);
    assert.equal(schemas.TerreinGebouwdObjectAdres.properties.oaoIdentificatie.deprecated, true);
    assert.ok(schemas.InnRechtsvormEnum.enum.includes('europese_cooperatieve_vennootschap'));
    assert.ok(schemas.InnRechtsvormEnum.enum.includes('europese_cooperatieve_venootschap'), 'the misspelled value of 1.5.1 stays valid');
    assert.equal(schemas.ZaakZoek.properties.expand.deprecated, true);
    for (const [path, item] of Object.entries(served.paths) as [string, any][]) {
      for (const operation of Object.values(item) as any[]) {
        assert.equal(Boolean(operation.deprecated), /^\/(zaakverzoeken|klantcontacten)/.test(path), `${operation.operationId} deprecated`);
      }
    }
  });
});

describe('The contract comparison', () => {
  /** The differences a change of the served document adds. */
  const changed = (change: (document: any) => void) => {
    const document = structuredClone(served);
    change(document);
    const before = new Set(compareWithContract(CONTRACT, served).map(line));
    return compareWithContract(CONTRACT, document).map(line).filter((d) => !before.has(d));
  };

  /** Each expected difference is found (a named schema's also under the names of the contract schemas built on it). */
  const finds = (found: string[], expected: string[]) => assert.deepEqual(expected.filter((d) => !found.includes(d)), [], `found: ${found.join('; ')}`);

  it('finds a changed length, type, enum, required list, readOnly and nullable in a named schema', () => {
    finds(
      changed((d) => {
        const zaak = d.components.schemas.Zaak;
        zaak.properties.identificatie.maxLength = 24;
        zaak.properties.startdatum.format = 'date-time';
        zaak.properties.archiefstatus.enum = zaak.properties.archiefstatus.enum.slice(1);
        zaak.required = zaak.required.filter((name: string) => name !== 'zaaktype');
        zaak.properties.uuid.readOnly = false;
        zaak.properties.hoofdzaak.nullable = false;
      }),
      [
        'schema Zaak | (schema) required | not required when served: zaaktype',
        'schema Zaak | archiefstatus | enum: not served: nog_te_archiveren',
        'schema Zaak | hoofdzaak | nullable: contract true, served false',
        'schema Zaak | identificatie | maxLength: contract 40, served 24',
        'schema Zaak | startdatum | format: contract date, served date-time',
        'schema Zaak | uuid | readOnly: contract true, served false',
      ],
    );
  });

  it('finds a missing operation, parameter, property, scope and success status', () => {
    finds(
      changed((d) => {
        delete d.paths['/statussen/{uuid}'].get;
        d.paths['/zaken'].get.parameters = d.paths['/zaken'].get.parameters.filter((p: any) => p.name !== 'identificatie');
        delete d.components.schemas.Resultaat.properties.toelichting;
        d.paths['/resultaten'].post.security = [{ 'JWT-Claims': ['zaken.bijwerken'] }];
        d.paths['/rollen/{uuid}'].delete.responses = { 200: d.paths['/rollen/{uuid}'].delete.responses['204'] };
      }),
      [
        'resultaat_create | security | contract JWT-Claims: zaken.bijwerken, zaken.geforceerd-bijwerken, served JWT-Claims: zaken.bijwerken',
        'rol_destroy | response 200 | not in the contract',
        'rol_destroy | response 204 | not served (served 200)',
        'schema Resultaat | toelichting | not served',
        'status_retrieve | operation | not served',
        'zaak_list | parameter identificatie (query) | not served',
      ],
    );
  });

  it('resolves $refs on both sides: an inlined copy of a schema is no difference, a changed one is', () => {
    assert.deepEqual(
      changed((d) => {
        d.paths['/resultaten'].post.requestBody.content['application/json'].schema = structuredClone(d.components.schemas.Resultaat);
      }),
      [],
    );
    assert.deepEqual(
      changed((d) => {
        const inlined = structuredClone(d.components.schemas.Resultaat);
        inlined.properties.toelichting.maxLength = 10;
        d.paths['/resultaten'].post.requestBody.content['application/json'].schema = inlined;
      }),
      ['resultaat_create | request body.toelichting | maxLength: contract 1000, served 10'],
    );
  });
});
