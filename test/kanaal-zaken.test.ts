import assert from 'node:assert/strict';
import { isPublishedOnKanaalZaken, KANAAL_ZAKEN_PUBLISHED } from '../src/plugin-api.js';

describe('the classic notifications on kanaal zaken', () => {
  it('publishes a PATCH as update, and only the actions the table names', () => {
    assert.equal(isPublishedOnKanaalZaken({ resource: 'zaak', action: 'partial_update', source: 'request' }), true);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'rol', action: 'update', source: 'service' }), true);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'status', action: 'create', source: 'request' }), true);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'status', action: 'destroy', source: 'request' }), false);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'zaakinformatieobject', action: 'partial_update', source: 'request' }), false);
  });

  it('does not publish records removed with their zaak, nor resources it does not know', () => {
    assert.equal(isPublishedOnKanaalZaken({ resource: 'rol', action: 'destroy', source: 'cascade' }), false);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'zaak', action: 'destroy', source: 'request' }), true);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'constructor', action: 'create', source: 'request' }), false);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'audittrail', action: 'create', source: 'request' }), false);
  });

  it('does not publish zaken a migration imports', () => {
    assert.equal(isPublishedOnKanaalZaken({ resource: 'zaak', action: 'create', source: 'import' }), false);
    assert.equal(isPublishedOnKanaalZaken({ resource: 'zaak', action: 'create', source: 'service' }), true);
  });

  it('cannot be changed at run time', () => {
    assert.ok(Object.isFrozen(KANAAL_ZAKEN_PUBLISHED));
    assert.throws(() => ((KANAAL_ZAKEN_PUBLISHED as Record<string, unknown>).besluit = ['create']));
    assert.throws(() => (KANAAL_ZAKEN_PUBLISHED.status as string[]).push('destroy'));
    assert.equal(isPublishedOnKanaalZaken({ resource: 'status', action: 'destroy', source: 'request' }), false);
  });
});
