import assert from 'node:assert/strict';
import { OptionsError } from '../../src/index.js';
import { cloudevents, type CloudEventsOptions } from './index.js';
import { sinkTakes } from './matching.js';

const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';
const refused = (options: unknown) => {
  try {
    cloudevents(options as CloudEventsOptions);
  } catch (error) {
    assert.ok(error instanceof OptionsError, String(error));
    return error.message;
  }
  assert.fail('accepted');
};

describe('cloudevents: options', () => {
  it('needs a source and at least one sink, each with an id and an http(s) URL', () => {
    assert.match(refused({ sinks: [{ id: 'a', url: 'https://a.example/events' }] }), /source is required/);
    assert.match(refused({ source: SOURCE, sinks: [] }), /sinks/);
    assert.match(refused({ source: SOURCE, sinks: [{ id: 'a', url: 'ftp://a.example/events' }] }), /sinks\[0\]\.url/);
    assert.match(refused({ source: SOURCE, sinks: [{ id: 'a b', url: 'https://a.example/events' }] }), /sinks\[0\]\.id/);
  });

  it('names unknown options, duplicate sink ids and binary mode to Open Notificaties', () => {
    assert.match(refused({ source: SOURCE, sinks: [{ id: 'a', url: 'https://a.example/events', kind: 'x' }] }), /sinks\[0\]\.kind is not a known option/);
    assert.match(refused({ source: SOURCE, profile: 'classic', sinks: [{ id: 'a', url: 'https://a.example/events' }] }), /profile/);
    assert.match(
      refused({ source: SOURCE, sinks: [{ id: 'a', url: 'https://a.example/events' }, { id: 'a', url: 'https://b.example/events' }] }),
      /sinks\[1\]\.id must be unique/,
    );
    assert.match(refused({ source: SOURCE, sinks: [{ id: 'on', mode: 'notificaties', contentMode: 'binary', url: 'https://on.example/api/v1' }] }), /sinks\[0\]\.contentMode must be structured/);
    assert.equal(cloudevents({ source: SOURCE, profile: ['mijn-overheid', 'nrc'], sinks: [{ id: 'a', url: 'https://a.example/events', auth: { bearer: 't' } }] }).name, 'cloudevents');
  });

  it('a sink takes the types it names (exact or prefix*) and only data matching every filter, a missing key matching nothing', () => {
    const data = { zaaktype: 'https://c.example/zaaktypen/1', bronorganisatie: '517439943' };
    assert.equal(sinkTakes({}, 'nl.overheid.zaken.zaak-gemuteerd', data), true);
    assert.equal(sinkTakes({ types: ['nl.overheid.zaken.zaak-*'] }, 'nl.overheid.zaken.zaak-gemuteerd', data), true);
    assert.equal(sinkTakes({ types: ['nl.overheid.zaken.zaak-*'] }, 'nl.overheid.zaken.status.create', data), false);
    assert.equal(sinkTakes({ types: ['nl.overheid.zaken.status.create'] }, 'nl.overheid.zaken.status.create', data), true);
    assert.equal(sinkTakes({ filters: { zaaktype: ['https://c.example/zaaktypen/2', 'https://c.example/zaaktypen/1'] } }, 'x', data), true);
    assert.equal(sinkTakes({ filters: { zaaktype: 'https://c.example/zaaktypen/1', bronorganisatie: '000000000' } }, 'x', data), false);
    assert.equal(sinkTakes({ filters: { vertrouwelijkheidaanduiding: 'openbaar' } }, 'x', data), false);
  });
});
