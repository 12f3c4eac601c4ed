import { createHash } from 'node:crypto';
import { TEST_RSIN, TEST_TYPES } from '../../src/testing/index.js';

/** A deterministic uuid (v4 form) from a seed: the same bundles every run. */
export function seededUuid(seed: string, version = 4): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}${hex.slice(13, 16)}-${'89ab'[parseInt(hex[16], 16) % 4]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const day = (n: number) => new Date(Date.UTC(2019, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
const at = (n: number, seconds = 0) => new Date(Date.UTC(2019, 0, 1) + n * 86_400_000 + seconds * 1000).toISOString();

/**
 * `count` zaak bundles as another registry at `base` would export them, varied by index: open,
 * closed (some `blijvend_bewaren` with no archiefactiedatum), reopened, deelzaken of an earlier zaak,
 * statussen set at the same moment, geometry, and every kind of record; `statussen`, `rollen` and
 * `audit` set how many of each a zaak has. Derived fields are filled in as a registry renders them
 * (the zaak's lists and current status, `indicatieLaatstGezetteStatus`, ...), so that a bundle reads
 * back equal once imported.
 */
export function* zaakBundles(count: number, base: string, { statussen = 3, rollen = 2, audit = 5, prefix = 'zaak' } = {}): Generator<Record<string, unknown>> {
  for (let i = 0; i < count; i++) {
    const uuid = seededUuid(`${prefix}-${i}`);
    const url = `${base}/zaken/${uuid}`;
    const closed = i % 3 === 1;
    const reopened = i % 7 === 3;
    const hoofdzaak = i % 10 === 9 ? `${base}/zaken/${seededUuid(`${prefix}-${i - 1}`)}` : null;
    const rolUuids = Array.from({ length: rollen }, (_, r) => seededUuid(`${prefix}-${i}-rol-${r}`));
    const statusUuids = Array.from({ length: statussen }, (_, s) => seededUuid(`${prefix}-${i}-status-${s}`));
    const zaak = {
      url,
      uuid,
      identificatie: `${prefix === 'zaak' ? 'MIG' : prefix.toUpperCase()}-${String(i).padStart(7, '0')}`,
      bronorganisatie: TEST_RSIN,
      omschrijving: `Gemigreerde zaak ${i}`,
      toelichting: '',
      zaaktype: TEST_TYPES.zaaktype,
      registratiedatum: day(i % 1000),
      verantwoordelijkeOrganisatie: TEST_RSIN,
      startdatum: day(i % 1000),
      einddatum: closed ? day((i % 1000) + 30) : null,
      einddatumGepland: null,
      uiterlijkeEinddatumAfdoening: null,
      publicatiedatum: null,
      communicatiekanaal: '',
      productenOfDiensten: [],
      vertrouwelijkheidaanduiding: 'openbaar',
      betalingsindicatie: '',
      betalingsindicatieWeergave: '',
      laatsteBetaaldatum: null,
      zaakgeometrie: i % 4 === 0 ? { type: 'Point', coordinates: [5 + (i % 100) / 1000, 52 + (i % 50) / 1000] } : null,
      verlenging: { reden: '', duur: null },
      opschorting: { indicatie: false, reden: '' },
      selectielijstklasse: '',
      hoofdzaak,
      deelzaken: [],
      relevanteAndereZaken: [],
      eigenschappen: [],
      rollen: [],
      status: null,
      zaakinformatieobjecten: [],
      zaakobjecten: [],
      kenmerken: [{ kenmerk: `oud-${i}`, bron: 'oud systeem' }],
      archiefnominatie: closed ? (i % 2 ? 'blijvend_bewaren' : 'vernietigen') : null,
      archiefstatus: 'nog_te_archiveren',
      archiefactiedatum: closed && i % 2 === 0 ? day((i % 1000) + 3000) : null,
      resultaat: null,
      opdrachtgevendeOrganisatie: '',
      processobjectaard: null,
      startdatumBewaartermijn: null,
      processobject: { datumkenmerk: '', identificatie: '', objecttype: '', registratie: '' },
    };
    const rolList = rolUuids.map((rolUuid, r) => ({
      url: `${base}/rollen/${rolUuid}`,
      uuid: rolUuid,
      zaak: url,
      betrokkene: '',
      betrokkeneType: 'natuurlijk_persoon',
      afwijkendeNaamBetrokkene: '',
      roltype: r === 0 ? TEST_TYPES.roltypeInitiator : TEST_TYPES.roltypeBehandelaar,
      omschrijving: r === 0 ? 'Aanvrager' : 'Behandelaar',
      omschrijvingGeneriek: r === 0 ? 'initiator' : 'behandelaar',
      roltoelichting: 'gemigreerd',
      registratiedatum: at(i % 1000, r),
      indicatieMachtiging: '',
      contactpersoonRol: null,
      betrokkeneIdentificatie: { inpBsn: String(100000000 + i), geslachtsnaam: `Jansen ${i}` },
    }));
    // Closed zaken end with the eindstatus; reopened ones have a status after it; every fifth has two at the same moment.
    const statusList = statusUuids.map((statusUuid, s) => ({
      url: `${base}/statussen/${statusUuid}`,
      uuid: statusUuid,
      zaak: url,
      statustype: (closed && s === statussen - 1) || (reopened && s === statussen - 2) ? TEST_TYPES.statustypeEind : TEST_TYPES.statustypeStart,
      datumStatusGezet: at(i % 1000, i % 5 === 0 && s > 0 ? 3600 : 3600 * (s + 1)),
      statustoelichting: `status ${s}`,
      gezetdoor: s === 0 && rolUuids.length ? `${base}/rollen/${rolUuids[0]}` : '',
    }));
    const audittrail = Array.from({ length: audit }, (_, a) => ({
      uuid: seededUuid(`${prefix}-${i}-audit-${a}`),
      bron: 'zrc',
      applicatieId: 'oud-systeem',
      applicatieWeergave: 'Oud systeem',
      gebruikersId: 'medewerker',
      gebruikersWeergave: 'Medewerker',
      actie: a === 0 ? 'create' : 'partial_update',
      actieWeergave: a === 0 ? 'Object aangemaakt' : 'Object deels bijgewerkt',
      resultaat: a === 0 ? 201 : 200,
      hoofdObject: url,
      resource: 'zaak',
      resourceUrl: url,
      toelichting: '',
      resourceWeergave: zaak.identificatie,
      aanmaakdatum: at(i % 1000, 60 * a),
      wijzigingen: { oud: a === 0 ? null : { omschrijving: `versie ${a - 1}`, hoofdzaak: hoofdzaak }, nieuw: { omschrijving: `versie ${a}`, url } },
    }));
    const bundle: Record<string, unknown> = { zaak, rollen: rolList, statussen: statusList, resultaat: null, audittrail };
    for (const key of ['zaakobjecten', 'zaakinformatieobjecten', 'zaakeigenschappen', 'klantcontacten', 'zaakbesluiten', 'zaakcontactmomenten', 'zaakverzoeken', 'zaaknotities']) bundle[key] = [];
    if (closed) bundle.resultaat = { url: `${base}/resultaten/${seededUuid(`${prefix}-${i}-resultaat`)}`, uuid: seededUuid(`${prefix}-${i}-resultaat`), zaak: url, resultaattype: TEST_TYPES.resultaattype, toelichting: 'afgerond' };
    if (i % 6 === 0) {
      bundle.zaakobjecten = [{ url: `${base}/zaakobjecten/${seededUuid(`${prefix}-${i}-zo`)}`, uuid: seededUuid(`${prefix}-${i}-zo`), zaak: url, object: 'https://bag.example.nl/panden/1', zaakobjecttype: '', objectType: 'pand', objectTypeOverige: '', objectTypeOverigeDefinitie: null, relatieomschrijving: 'betreft', objectIdentificatie: null }];
      bundle.zaakinformatieobjecten = [{ url: `${base}/zaakinformatieobjecten/${seededUuid(`${prefix}-${i}-zio`)}`, uuid: seededUuid(`${prefix}-${i}-zio`), informatieobject: `https://drc.example.nl/documenten/api/v1/enkelvoudiginformatieobjecten/${seededUuid(`${prefix}-${i}-eio`)}`, zaak: url, aardRelatieWeergave: 'Hoort bij, omgekeerd: kent', titel: 'brief', beschrijving: '', registratiedatum: at(i % 1000, 7200), vernietigingsdatum: null, status: statusList.length ? statusList[0].url : null }];
      bundle.zaakeigenschappen = [{ url: `${url}/zaakeigenschappen/${seededUuid(`${prefix}-${i}-ze`)}`, uuid: seededUuid(`${prefix}-${i}-ze`), zaak: url, eigenschap: `${TEST_TYPES.zaaktype.replace(/zaaktypen\/.*/, '')}eigenschappen/${seededUuid('eigenschap')}`, naam: 'kenteken', waarde: `XX-${i}` }];
      bundle.klantcontacten = [{ url: `${base}/klantcontacten/${seededUuid(`${prefix}-${i}-kc`)}`, uuid: seededUuid(`${prefix}-${i}-kc`), zaak: url, identificatie: `KC-${String(i).padStart(8, '0')}`, datumtijd: at(i % 1000, 100), kanaal: 'telefoon', onderwerp: 'vraag', toelichting: '' }];
      bundle.zaakbesluiten = [{ url: `${url}/besluiten/${seededUuid(`${prefix}-${i}-zb`)}`, uuid: seededUuid(`${prefix}-${i}-zb`), besluit: `https://brc.example.nl/besluiten/api/v1/besluiten/${seededUuid(`${prefix}-${i}-b`)}` }];
      bundle.zaakcontactmomenten = [{ url: `${base}/zaakcontactmomenten/${seededUuid(`${prefix}-${i}-zcm`)}`, uuid: seededUuid(`${prefix}-${i}-zcm`), zaak: url, contactmoment: `https://cmc.example.nl/contactmomenten/${i}` }];
      bundle.zaakverzoeken = [{ url: `${base}/zaakverzoeken/${seededUuid(`${prefix}-${i}-zv`)}`, uuid: seededUuid(`${prefix}-${i}-zv`), zaak: url, verzoek: `https://vrc.example.nl/verzoeken/${i}` }];
    }
    derive(bundle, i % 10 === 8 && i + 1 < count ? [`${base}/zaken/${seededUuid(`${prefix}-${i + 1}`)}`] : []);
    yield bundle;
  }
}

/** The fields a registry derives from a zaak's records, filled in on its bundle. */
function derive(bundle: Record<string, any>, deelzaken: string[]): void {
  const urls = (key: string) => (bundle[key] as { url: string }[]).map((record) => record.url);
  const statussen = bundle.statussen as Record<string, any>[];
  // The current status: the latest by datumStatusGezet, of equal ones the last set.
  const latest = statussen.reduce<Record<string, any> | undefined>((best, status) => (!best || Date.parse(status.datumStatusGezet) >= Date.parse(best.datumStatusGezet) ? status : best), undefined);
  Object.assign(bundle.zaak, {
    deelzaken,
    eigenschappen: urls('zaakeigenschappen'),
    rollen: urls('rollen'),
    status: latest?.url ?? null,
    zaakinformatieobjecten: urls('zaakinformatieobjecten'),
    zaakobjecten: urls('zaakobjecten'),
    resultaat: bundle.resultaat?.url ?? null,
  });
  for (const status of statussen) {
    status.indicatieLaatstGezetteStatus = status === latest;
    status.zaakinformatieobjecten = (bundle.zaakinformatieobjecten as Record<string, any>[]).filter((zio) => zio.status === status.url).map((zio) => zio.url);
  }
  for (const rol of bundle.rollen as Record<string, any>[]) rol.statussen = statussen.filter((status) => status.gezetdoor === rol.url).map((status) => status.url);
}
