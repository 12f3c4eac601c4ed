import assert from 'node:assert/strict';
import { handOut, renderingOf, toJson } from '../src/http/prerendered.js';

describe('stored renderings handed out as copy-on-write views', () => {
  const representation = () => ({ url: 'http://x/zaken/1', omschrijving: 'een', verlenging: { reden: '', duur: null }, rollen: ['http://x/rollen/1'] });

  it('reads as the representation, and serializes to the stored text while unchanged', () => {
    const rendering = renderingOf(representation());
    const view = handOut(rendering);
    assert.deepEqual({ ...view }, representation());
    assert.deepEqual(Object.keys(view), Object.keys(representation()));
    assert.equal(JSON.stringify(view), JSON.stringify(representation()));
    assert.equal('omschrijving' in view, true);
    assert.equal(Object.prototype.hasOwnProperty.call(view, 'url'), true);
    assert.equal(toJson(view), rendering.json);
    assert.equal(toJson({ count: 2, next: null, results: [view, handOut(rendering)] }), JSON.stringify({ count: 2, next: null, results: [representation(), representation()] }));
  });

  it('gives a changed view its own copy: the change is serialized, the rendering and other views keep theirs', () => {
    const rendering = renderingOf(representation());
    const changed = handOut(rendering);
    changed._expand = { zaaktype: { url: 'http://catalogus/zaaktypen/1' } };
    changed.omschrijving = 'twee';
    delete changed.rollen;
    const other = handOut(rendering);
    const expected = { ...representation(), omschrijving: 'twee', _expand: { zaaktype: { url: 'http://catalogus/zaaktypen/1' } } };
    delete (expected as Record<string, unknown>).rollen;
    assert.equal(toJson(changed), JSON.stringify(expected));
    assert.equal(toJson(other), rendering.json);
    assert.equal(rendering.json, JSON.stringify(representation()));
    // A page mixing changed and unchanged views: each item by its own text.
    assert.equal(toJson({ results: [other, changed] }), JSON.stringify({ results: [representation(), expected] }));
  });

  it('keeps nested values frozen: a hook replaces them instead of changing the shared rendering', () => {
    const view = handOut(renderingOf(representation()));
    assert.throws(() => {
      (view.verlenging as { reden: string }).reden = 'x';
    }, TypeError);
    view.verlenging = { reden: 'x', duur: 'P5D' };
    assert.deepEqual(JSON.parse(toJson(view)).verlenging, { reden: 'x', duur: 'P5D' });
  });
});
