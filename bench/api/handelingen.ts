import type autocannon from 'autocannon';
import type { Scenario } from './measure.js';
import { RSIN, ZAAKTYPEN, resultaattypeUrl, roltypeUrl, statustypeUrl, zaaktypeUrl } from './world.js';

/**
 * The handelingen against the separate calls they replace, on the same connections, compared per
 * piece of work: `zaak_registreren` with 3 rollen, 2 zaakobjecten and a status against those 7 calls;
 * `zaak_afsluiten` against a PATCH of the zaak, a resultaat and the eindstatus. The zaken closed are
 * those the registrations made (every registration cell's answers feed the pool), so the closing
 * cells come after them; `prefill` registers zaken ahead for a pool that runs short.
 */
export function handelingenScenarios(headers: Record<string, string>) {
  const api = '/zaken/api/v1';
  const open: { url: string; type: number }[] = [];
  let registered = 0;
  const withJson = { ...headers, 'content-type': 'application/json' };
  const post = (path: string, body: unknown): autocannon.Request => ({ method: 'POST', path: `${api}${path}`, headers: withJson, body: JSON.stringify(body) });
  const type = () => registered++ % ZAAKTYPEN;
  const zaak = (i: number) => ({ zaaktype: zaaktypeUrl(i), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' });
  const status = (i: number) => ({ statustype: statustypeUrl(i, 1), datumStatusGezet: '2026-01-02T10:00:00Z' });
  const rol = (i: number, generiek: 'initiator' | 'behandelaar', n: number) => ({
    roltype: roltypeUrl(i, generiek),
    betrokkeneType: 'medewerker',
    roltoelichting: generiek,
    betrokkeneIdentificatie: { identificatie: `medewerker-${n}` },
  });
  const rollen = (i: number) => [rol(i, 'initiator', 1), rol(i, 'behandelaar', 2), rol(i, 'behandelaar', 3)];
  const zaakobjecten = [1, 2].map((n) => ({ objectType: 'pand', object: `https://bag.example.nl/panden/${n}` }));
  const registration = (i: number) => ({ zaak: zaak(i), status: status(i), rollen: rollen(i), zaakobjecten });
  const keep = (url: string, i: number) => void open.push({ url, type: i });
  // The answer's zaak: the first `"url"` of the zaak_registreren answer is the zaak's, as of POST /zaken.
  const zaakUrlOf = (body: string) => /"url":"([^"]+)"/.exec(body)?.[1];

  interface Context {
    zaak?: string;
    type?: number;
  }
  /** A request of a sequence that names the zaak an earlier request of it made or took. */
  const onZaak = (path: string, body: (context: Context) => unknown): autocannon.Request => ({
    method: 'POST',
    path: `${api}/zaken`,
    headers: withJson,
    setupRequest: (request, context) => {
      const { zaak: url, type: i } = context as Context;
      return { ...request, path: `${api}${path}`, body: JSON.stringify(body({ zaak: url, type: i })) };
    },
  });
  /** The first request of a closing: takes an open zaak from the pool; none left, a zaak that does not exist (404: counted as failed). */
  const takeZaak = (request: (zaak: { url: string; type: number }) => autocannon.Request): autocannon.Request => ({
    method: 'POST',
    path: `${api}/zaken`,
    headers: withJson,
    setupRequest: (_request, context) => {
      const next = open.shift() ?? { url: `${api}/zaken/00000000-0000-4000-8000-000000000000`, type: 0 };
      Object.assign(context, { zaak: next.url, type: next.type });
      return request(next);
    },
  });
  const local = (url: string) => (url.startsWith(api) ? url : url.slice(url.indexOf(api)));

  const separateRegistration: Scenario = {
    name: 'handeling: the 7 calls zaak_registreren replaces (POST /zaken, /statussen, 3 /rollen, 2 /zaakobjecten)',
    target: 'registry',
    sequence: true,
    headers,
    requests: [
      {
        ...post('/zaken', zaak(0)),
        setupRequest: (request, context) => {
          const i = type();
          Object.assign(context, { type: i });
          return { ...request, body: JSON.stringify(zaak(i)) };
        },
        onResponse: (code, body, context) => {
          const url = zaakUrlOf(body);
          if (code !== 201 || !url) return;
          Object.assign(context, { zaak: url });
        },
      },
      {
        ...onZaak('/statussen', ({ zaak: url, type: i }) => ({ ...status(i!), zaak: url })),
        onResponse: (code, _body, context) => {
          const { zaak: url, type: i } = context as Context;
          if (code === 201 && url) keep(url, i!);
        },
      },
      ...[0, 1, 2].map((n) => onZaak('/rollen', ({ zaak: url, type: i }) => ({ ...rollen(i!)[n], zaak: url }))),
      ...[0, 1].map((n) => onZaak('/zaakobjecten', ({ zaak: url }) => ({ ...zaakobjecten[n], zaak: url }))),
    ],
  };
  const registreren: Scenario = {
    name: 'handeling: POST /zaak_registreren (3 rollen, 2 zaakobjecten, status)',
    target: 'registry',
    baseline: separateRegistration.name,
    sequence: true,
    headers,
    requests: [
      {
        ...post('/zaak_registreren', registration(0)),
        setupRequest: (request, context) => {
          const i = type();
          Object.assign(context, { type: i });
          return { ...request, body: JSON.stringify(registration(i)) };
        },
        onResponse: (code, body, context) => {
          const url = zaakUrlOf(body);
          if (code === 201 && url) keep(url, (context as Context).type!);
        },
      },
    ],
  };
  const eindstatus = (i: number) => ({ statustype: statustypeUrl(i, 2), datumStatusGezet: '2026-01-03T10:00:00Z' });
  const separateClosing: Scenario = {
    name: 'handeling: the 3 calls zaak_afsluiten replaces (PATCH /zaken/{uuid}, POST /resultaten, POST /statussen)',
    target: 'registry',
    sequence: true,
    headers,
    requests: [
      takeZaak((zaak) => ({ method: 'PATCH', path: local(zaak.url), headers: withJson, body: JSON.stringify({ toelichting: 'Afgehandeld' }) })),
      onZaak('/resultaten', ({ zaak: url, type: i }) => ({ zaak: url, resultaattype: resultaattypeUrl(i!) })),
      onZaak('/statussen', ({ zaak: url, type: i }) => ({ ...eindstatus(i!), zaak: url })),
    ],
  };
  const afsluiten: Scenario = {
    name: 'handeling: POST /zaak_afsluiten/{uuid}',
    target: 'registry',
    baseline: separateClosing.name,
    sequence: true,
    headers,
    requests: [
      takeZaak((zaak) => ({
        method: 'POST',
        path: `${api}/zaak_afsluiten/${zaak.url.split('/').pop()}`,
        headers: withJson,
        body: JSON.stringify({ zaak: { toelichting: 'Afgehandeld' }, resultaat: { resultaattype: resultaattypeUrl(zaak.type) }, status: eindstatus(zaak.type) }),
      })),
    ],
  };

  /** Registers `count` zaken for the closing cells, `parallel` at a time. */
  async function prefill(registryBase: string, count: number, parallel = 16): Promise<void> {
    let left = count;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (left-- > 0) {
          const i = type();
          const response = await fetch(`${registryBase}${api}/zaak_registreren`, { method: 'POST', headers: withJson, body: JSON.stringify(registration(i)) });
          const body = await response.text();
          if (response.status !== 201) throw new Error(`zaak_registreren: ${response.status} ${body}`);
          keep(zaakUrlOf(body)!, i);
        }
      }),
    );
  }

  return { scenarios: [separateRegistration, registreren, separateClosing, afsluiten], prefill, open };
}
