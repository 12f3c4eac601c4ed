import assert from 'node:assert/strict';
import { TYPES, zaakInput, type TestServer } from './registry.js';

export const DOCUMENT = 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/71111111-1111-4111-8111-111111111111';

/** A zaak with one record of every kind, as the API returned each. */
export interface ZaakFamily {
  zaak: any;
  status: any;
  resultaat: any;
  rol: any;
  zaakobject: any;
  zaakinformatieobject: any;
  zaakeigenschap: any;
  klantcontact: any;
  zaakcontactmoment: any;
  zaakverzoek: any;
  besluit: any;
}

/** Creates a zaak and one record of each kind through the API; fails the test on any non-201. */
export async function createZaakFamily(api: TestServer, overrides: Record<string, unknown> = {}): Promise<ZaakFamily> {
  const post = async (path: string, json: unknown) => {
    const response = await api.request(path, { method: 'POST', json });
    assert.equal(response.status, 201, `${path}: ${response.text}`);
    return response.body;
  };
  const zaak = await post('/zaken', zaakInput(overrides));
  const status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
  return {
    zaak,
    status,
    resultaat: await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype }),
    rol: await post('/rollen', {
      zaak: zaak.url,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: TYPES.roltypeBehandelaar,
      roltoelichting: 'behandelt',
      betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
    }),
    zaakobject: await post('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1' }),
    zaakinformatieobject: await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT, titel: 'Brief' }),
    zaakeigenschap: await post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'AB-12-CD' }),
    klantcontact: await post('/klantcontacten', { zaak: zaak.url, datumtijd: '2024-03-01T09:00:00Z', kanaal: 'telefoon' }),
    zaakcontactmoment: await post('/zaakcontactmomenten', { zaak: zaak.url, contactmoment: 'http://contactmomenten.test/api/v1/contactmomenten/81111111-1111-4111-8111-111111111111' }),
    zaakverzoek: await post('/zaakverzoeken', { zaak: zaak.url, verzoek: 'http://verzoeken.test/api/v1/verzoeken/91111111-1111-4111-8111-111111111111' }),
    besluit: await post(`/zaken/${zaak.uuid}/besluiten`, { besluit: 'http://besluiten.test/api/v1/besluiten/a1111111-1111-4111-8111-111111111111' }),
  };
}
