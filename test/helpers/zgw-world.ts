import { startResourceServer, type ResourceServer } from './zgw-servers.js';

/**
 * The remote side of a ZGW landscape on 127.0.0.1 for the business rules: a Catalogi API, a
 * Documenten API and a third registry (Referentielijsten for the communicatiekanaal, and zaken of
 * another Zaken API), each a real HTTP server.
 */
export interface ZgwWorld {
  catalog: ResourceServer;
  documents: ResourceServer;
  other: ResourceServer;
  /** The hosts the registry may fetch from. */
  allowedHosts: string[];
  zaaktype: string;
  zaaktypeConcept: string;
  zaaktypeOther: string;
  types: {
    statusStart: string;
    statusMiddle: string;
    statusEnd: string;
    resultaat: string;
    rolInitiator: string;
    rolBehandelaar: string;
    eigenschap: string;
    informatieobjecttype: string;
  };
  /** Types of `zaaktypeOther`: valid types, but of the wrong zaaktype. */
  otherTypes: { status: string; resultaat: string; rol: string; eigenschap: string; informatieobjecttype: string };
  products: string[];
  /** Creates an informatieobject in the Documenten API; returns its URL. */
  document(fields?: Record<string, unknown>): string;
  communicatiekanaal: string;
  remoteZaak: string;
  close(): Promise<void>;
}

let documentNumber = 0;

export async function startZgwWorld(): Promise<ZgwWorld> {
  const [catalog, documents, other] = await Promise.all([startResourceServer(), startResourceServer(), startResourceServer()]);
  const c = (path: string) => `${catalog.origin}/catalogi/api/v1${path}`;
  const type = (path: string, value: Record<string, unknown>) => catalog.put(`/catalogi/api/v1${path}`, { url: c(path), ...value });

  const zaaktype = c('/zaaktypen/1');
  const zaaktypeOther = c('/zaaktypen/2');
  const zaaktypeConcept = c('/zaaktypen/3');
  const types = {
    statusStart: type('/statustypen/11', { zaaktype, volgnummer: 1, omschrijving: 'Ontvangen' }),
    // Out of order on purpose: the end status is the highest volgnummer, not the last in the list.
    statusEnd: type('/statustypen/13', { zaaktype, volgnummer: 3, omschrijving: 'Afgehandeld' }),
    statusMiddle: type('/statustypen/12', { zaaktype, volgnummer: 2, omschrijving: 'In behandeling' }),
    resultaat: type('/resultaattypen/11', { zaaktype, omschrijving: 'Toegekend' }),
    rolInitiator: type('/roltypen/11', { zaaktype, omschrijving: 'Aanvrager', omschrijvingGeneriek: 'initiator' }),
    rolBehandelaar: type('/roltypen/12', { zaaktype, omschrijving: 'Behandelaar', omschrijvingGeneriek: 'behandelaar' }),
    eigenschap: type('/eigenschappen/11', { zaaktype, naam: 'kenteken' }),
    informatieobjecttype: type('/informatieobjecttypen/11', { omschrijving: 'Aanvraag', vertrouwelijkheidaanduiding: 'openbaar' }),
  };
  const otherTypes = {
    status: type('/statustypen/21', { zaaktype: zaaktypeOther, volgnummer: 1 }),
    resultaat: type('/resultaattypen/21', { zaaktype: zaaktypeOther }),
    rol: type('/roltypen/21', { zaaktype: zaaktypeOther, omschrijving: 'Adviseur', omschrijvingGeneriek: 'adviseur' }),
    eigenschap: type('/eigenschappen/21', { zaaktype: zaaktypeOther, naam: 'kleur' }),
    informatieobjecttype: type('/informatieobjecttypen/21', { omschrijving: 'Advies', vertrouwelijkheidaanduiding: 'openbaar' }),
  };
  const products = ['https://producten.test/api/v1/producten/1', 'https://producten.test/api/v1/producten/2'];
  type('/zaaktypen/1', {
    identificatie: 'ZT-1',
    vertrouwelijkheidaanduiding: 'openbaar',
    concept: false,
    productenOfDiensten: products,
    statustypen: [types.statusStart, types.statusEnd, types.statusMiddle],
    resultaattypen: [types.resultaat],
    roltypen: [types.rolInitiator, types.rolBehandelaar],
    eigenschappen: [types.eigenschap],
    informatieobjecttypen: [types.informatieobjecttype],
  });
  type('/zaaktypen/2', {
    identificatie: 'ZT-2',
    vertrouwelijkheidaanduiding: 'openbaar',
    concept: false,
    productenOfDiensten: [],
    statustypen: [otherTypes.status],
    resultaattypen: [otherTypes.resultaat],
    roltypen: [otherTypes.rol],
    eigenschappen: [otherTypes.eigenschap],
    informatieobjecttypen: [otherTypes.informatieobjecttype],
  });
  type('/zaaktypen/3', { identificatie: 'ZT-3', vertrouwelijkheidaanduiding: 'openbaar', concept: true, productenOfDiensten: [], statustypen: [], resultaattypen: [], roltypen: [], eigenschappen: [], informatieobjecttypen: [] });

  const communicatiekanaal = other.put('/referentielijsten/api/v1/communicatiekanalen/1', {
    url: `${other.origin}/referentielijsten/api/v1/communicatiekanalen/1`,
    naam: 'Balie',
    omschrijving: 'Aan de balie',
  });
  const remoteZaak = other.put('/zaken/api/v1/zaken/1', {
    url: `${other.origin}/zaken/api/v1/zaken/1`,
    identificatie: 'ELDERS-1',
    zaaktype: zaaktypeOther,
    bronorganisatie: '002220647',
  });

  return {
    catalog,
    documents,
    other,
    allowedHosts: [catalog.host, documents.host, other.host],
    zaaktype,
    zaaktypeConcept,
    zaaktypeOther,
    types,
    otherTypes,
    products,
    document(fields = {}) {
      const path = `/documenten/api/v1/enkelvoudiginformatieobjecten/${++documentNumber}`;
      return documents.put(path, {
        url: documents.origin + path,
        informatieobjecttype: types.informatieobjecttype,
        indicatieGebruiksrecht: false,
        status: 'definitief',
        ...fields,
      });
    },
    communicatiekanaal,
    remoteZaak,
    close: async () => void (await Promise.all([catalog.close(), documents.close(), other.close()])),
  };
}
