import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_ZAAKTYPEN, demoType, demoZaaktype } from '../src/demo.js';
import { spawnTs, waitForOutput } from './helpers/spawn.js';

const SECRET = 'a-secret-of-at-least-thirty-two-bytes';

/** Starts `zaakregister serve` and resolves with the URL it serves and the URL it listens on. */
async function serve(args: string[]) {
  const server = spawnTs('src/cli.ts', ['serve', '--database', 'memory', '--port', '0', ...args]);
  try {
    const [, base, listening] = await waitForOutput(server, /serving (http:\/\/\S+) \(listening on ([^;]+);/);
    return { server, base, listening };
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
}

/** An IPv4 address of this machine other than loopback, when it has one. */
const externalAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

describe('CLI development mode', function () {
  this.timeout(180_000);

  it('serves the demo catalog at its URLs, and a melding goes from creation to an archived end with a zaakeigenschap', async () => {
    const { server, base } = await serve(['--development']);
    try {
      const origin = new URL(base).origin;
      const zaaktype = demoZaaktype('meldingOpenbareRuimte', origin);
      const json = async (url: string, init: RequestInit = {}) => {
        const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
      };
      const post = async (url: string, body: unknown) => {
        const created = await json(url, { method: 'POST', body: JSON.stringify(body) });
        assert.equal(created.status, 201, `${url}: ${created.text}`);
        return created.body;
      };

      // The catalog answers at the URLs the zaak refers to, in the Catalogi API's shape.
      const fetchedZaaktype = await json(zaaktype);
      assert.equal(fetchedZaaktype.status, 200);
      assert.equal(fetchedZaaktype.body.url, zaaktype);
      assert.equal(fetchedZaaktype.body.omschrijving, 'Melding openbare ruimte');
      assert.deepEqual(fetchedZaaktype.body.statustypen, [demoType('statustypen', 'meldingOntvangen', origin), demoType('statustypen', 'meldingAfgehandeld', origin)]);
      assert.equal(fetchedZaaktype.body.resultaattypen.length, 2);
      const statustypen = await json(`${origin}/catalogi/api/v1/statustypen?zaaktype=${encodeURIComponent(zaaktype)}`);
      assert.equal(statustypen.status, 200);
      assert.deepEqual({ ...statustypen.body, results: statustypen.body.results.map((s: { omschrijving: string }) => s.omschrijving) }, { count: 2, next: null, previous: null, results: ['Ontvangen', 'Afgehandeld'] });
      for (const [kind, count] of [['resultaattypen', 2], ['roltypen', 2], ['eigenschappen', 2]] as const) {
        const list = await json(`${origin}/catalogi/api/v1/${kind}?zaaktype=${encodeURIComponent(zaaktype)}`);
        assert.equal(list.body.count, count, `${kind}: ${list.text}`);
        assert.ok(list.body.results.every((item: { zaaktype: string }) => item.zaaktype === zaaktype));
      }
      assert.equal((await json(`${origin}/catalogi/api/v1/zaaktypen`)).body.count, Object.keys(DEMO_ZAAKTYPEN).length);
      const eigenschap = await json(demoType('eigenschappen', 'meldingCategorie', origin));
      assert.deepEqual(eigenschap.body.specificatie.waardenverzameling, ['afval', 'verlichting', 'groen', 'overig']);
      for (const [kind, name] of [['resultaattypen', 'meldingOpgelost'], ['roltypen', 'meldingBehandelaar'], ['informatieobjecttypen', 'melding']] as const) {
        assert.equal((await json(demoType(kind, name as never, origin))).status, 200, `${kind} ${name}`);
      }
      const unknown = await json(`${origin}/catalogi/api/v1/zaaktypen/00000000-0000-4000-8000-000000000000`);
      assert.equal(unknown.status, 404);

      // The lifecycle: create, status, rol, zaakeigenschap, resultaat "Opgelost", eindstatus "Afgehandeld".
      const zaak = await post(`${base}/zaken`, { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-03-01', zaaktype });
      await post(`${base}/statussen`, { zaak: zaak.url, statustype: demoType('statustypen', 'meldingOntvangen', origin), datumStatusGezet: '2024-03-01T09:00:00Z' });
      await post(`${base}/rollen`, {
        zaak: zaak.url,
        betrokkeneType: 'natuurlijk_persoon',
        roltype: demoType('roltypen', 'meldingMelder', origin),
        roltoelichting: 'meldt een volle afvalbak',
        betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
      });
      const zaakeigenschap = await post(`${base}/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: demoType('eigenschappen', 'meldingCategorie', origin), waarde: 'afval' });
      assert.equal(zaakeigenschap.naam, 'categorie');
      await post(`${base}/resultaten`, { zaak: zaak.url, resultaattype: demoType('resultaattypen', 'meldingOpgelost', origin), toelichting: 'geleegd' });
      await post(`${base}/statussen`, { zaak: zaak.url, statustype: demoType('statustypen', 'meldingAfgehandeld', origin), datumStatusGezet: '2024-03-02T10:00:00Z' });

      const closed = (await json(zaak.url)).body;
      assert.equal(closed.einddatum, '2024-03-02');
      assert.equal(closed.archiefnominatie, 'vernietigen');
      assert.equal(closed.archiefactiedatum, '2025-03-02');
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('listens on 127.0.0.1 only unless a host is given (--host or "host"), and says where; without development mode on every interface', async () => {
    const development = await serve(['--development']);
    try {
      assert.match(development.listening, /^http:\/\/127\.0\.0\.1:\d+$/);
      const port = new URL(development.listening).port;
      assert.equal((await fetch(`http://127.0.0.1:${port}/zaken/api/v1/zaken`)).status, 200);
      const external = externalAddress();
      if (external) await assert.rejects(fetch(`http://${external}:${port}/zaken/api/v1/zaken`), /fetch failed/);
    } finally {
      development.server.kill('SIGKILL');
    }

    const explicit = await serve(['--development', '--host', '0.0.0.0']);
    try {
      assert.match(explicit.listening, /^http:\/\/0\.0\.0\.0:\d+ \(every interface\)$/);
      await waitForOutput(explicit.server, /development mode without authentication is reachable from the network/);
    } finally {
      explicit.server.kill('SIGKILL');
    }

    const dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-host-'));
    try {
      const config = path.join(dir, 'config.json');
      await writeFile(config, JSON.stringify({ host: '127.0.0.2', development: true }));
      const fromFile = await serve(['--config', config]);
      fromFile.server.kill('SIGKILL');
      assert.match(fromFile.listening, /^http:\/\/127\.0\.0\.2:\d+$/);

      await writeFile(config, JSON.stringify({ clients: { zac: SECRET }, applications: [{ clientIds: ['zac'], label: 'ZAC', heeftAlleAutorisaties: true, autorisaties: [] }], catalog: { type: 'http' } }));
      const production = await serve(['--config', config]);
      production.server.kill('SIGKILL');
      assert.match(production.listening, /^http:\/\/(\[::\]|0\.0\.0\.0):\d+ \(every interface\)$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
