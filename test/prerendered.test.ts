import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { RenderingCache, handOut, payloadPieces, renderingOf, toJson, toPayload } from '../src/http/prerendered.js';

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
    assert.equal(toJson(view), rendering.bytes.toString());
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
    assert.equal(toJson(other), rendering.bytes.toString());
    assert.equal(rendering.bytes.toString(), JSON.stringify(representation()));
    // A page mixing changed and unchanged views: each item by its own text.
    assert.equal(toJson({ results: [other, changed] }), JSON.stringify({ results: [representation(), expected] }));
  });

  it('sends the same bytes as its JSON text, pages of views, changed views and text beyond ASCII included', () => {
    const rendering = renderingOf({ ...representation(), omschrijving: 'één zaak — 𝄞' });
    const changed = handOut(rendering);
    changed.toelichting = 'ß';
    const bodies = [handOut(rendering), changed, { count: 3, next: 'http://x/?page=2', previous: null, results: [handOut(rendering), changed, handOut(rendering)] }, { results: [] }, 'text'];
    for (const body of bodies) assert.deepEqual(toPayload(body), Buffer.from(toJson(body)), JSON.stringify(body));
    assert.equal(JSON.parse(toPayload(bodies[2]).toString()).results[0].omschrijving, 'één zaak — 𝄞');
  });

  it('writes a page as its pieces: the envelope around each unchanged zaak\'s own stored bytes, never copied', () => {
    const renderings = [renderingOf(representation()), renderingOf({ ...representation(), omschrijving: 'twee' })];
    const changed = handOut(renderings[0]);
    changed.omschrijving = 'drie';
    const page = { count: 3, next: null, previous: null, results: [handOut(renderings[0]), handOut(renderings[1]), changed] };
    const pieces = payloadPieces(page);
    assert.deepEqual(Buffer.concat(pieces), toPayload(page));
    assert.equal(pieces.filter((piece) => piece === renderings[0].bytes).length, 1, 'the first zaak is its stored Buffer itself');
    assert.equal(pieces.filter((piece) => piece === renderings[1].bytes).length, 1);
    assert.deepEqual(payloadPieces(handOut(renderings[1])), [renderings[1].bytes]);
  });

  it('sends an unchanged view as its rendering\'s own bytes, every time, and a Buffer body (serialized by a hook) as it is', () => {
    const rendering = renderingOf(representation());
    const payload = toPayload(handOut(rendering));
    assert.equal(toPayload(handOut(rendering)), payload, 'the same Buffer: a hook may remember what it computed of it');
    const changed = handOut(rendering);
    changed.toelichting = 'anders';
    assert.notEqual(toPayload(changed), payload);
    assert.equal(toPayload(payload), payload);
    assert.equal(toJson(payload), JSON.stringify(representation()));
  });

  it('leaves out members JSON.stringify leaves out, the first member of a page included', () => {
    const rendering = renderingOf(representation());
    const page = { note: undefined, count: 1, skip: () => 1, results: [handOut(rendering)], [Symbol('x')]: 1 };
    assert.equal(toJson(page), JSON.stringify(page));
    assert.deepEqual(toPayload(page), Buffer.from(JSON.stringify(page)));
    assert.equal(toJson({ note: undefined, results: [handOut(rendering)], after: undefined }), JSON.stringify({ results: [representation()] }));
  });

  it('freezes, inspects and copies as a plain object, the shared rendering untouched', () => {
    const rendering = renderingOf(representation());
    const frozen: Record<string, unknown> = handOut(rendering);
    Object.freeze(frozen);
    assert.ok(Object.isFrozen(frozen));
    assert.throws(() => {
      frozen.omschrijving = 'x';
    }, TypeError);
    assert.equal(toJson(frozen), JSON.stringify(representation()));
    assert.equal(Object.getPrototypeOf(handOut(rendering)), Object.prototype);
    assert.equal(inspect(handOut(rendering)), inspect(representation()));
    assert.deepEqual(structuredClone({ ...handOut(rendering) }), representation());
    const changed = handOut(rendering);
    changed.omschrijving = 'twee';
    Object.preventExtensions(changed);
    assert.equal(JSON.parse(toJson(changed)).omschrijving, 'twee');
    assert.equal(toJson(handOut(rendering)), rendering.bytes.toString());
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

describe('the rendering cache', () => {
  const rendering = (n: number) => renderingOf({ n });

  it('answers only the revision it holds, and stays within its bound, keeping what was read since', () => {
    const cache = new RenderingCache(3);
    for (const key of ['a', 'b', 'c']) cache.set(key, '1', rendering(1));
    assert.equal(cache.get('a', '2'), undefined, 'another revision');
    assert.ok(cache.get('a', '1'));
    cache.set('d', '1', rendering(4));
    // b, never read, went; a, read, stayed.
    assert.deepEqual(['a', 'b', 'c', 'd'].map((key) => cache.has(key)), [true, false, true, true]);
    cache.set('e', '1', rendering(5));
    cache.set('f', '1', rendering(6));
    assert.deepEqual(['a', 'c', 'd', 'e', 'f'].filter((key) => cache.has(key)).length, 3);
    cache.set('a', '2', rendering(7));
    assert.equal(cache.get('a', '1'), undefined, 'replaced by the newer revision');
    assert.ok(cache.get('a', '2'));
  });

  it('keeps the rendering it stores last, when every other was read since', () => {
    const cache = new RenderingCache(2);
    cache.set('a', '1', rendering(1));
    cache.set('b', '1', rendering(2));
    cache.get('a', '1');
    cache.get('b', '1');
    cache.set('c', '1', rendering(3));
    assert.ok(cache.get('c', '1'));
    assert.deepEqual(['a', 'b'].filter((key) => cache.has(key)).length, 1);
  });
});
