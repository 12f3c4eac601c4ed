import assert from 'node:assert/strict';
import { maxOccurrences, waardeMismatches, warningHeader } from './specificatie.js';

const codes = (specificatie: unknown, waarde: string) => waardeMismatches(specificatie, waarde).map((m) => m.code);

describe('zrc-rules: what a specificatie rules out', () => {
  it('checks nothing the catalog leaves out or writes in a form the standard does not know', () => {
    for (const specificatie of [undefined, null, 'tekst', [], {}, { formaat: 'kleur', lengte: '1' }, { formaat: 'tekst', lengte: 'lang' }]) {
      assert.deepEqual(codes(specificatie, 'een waarde van willekeurige lengte'), [], JSON.stringify(specificatie));
    }
    assert.deepEqual(codes({ formaat: 'getal', lengte: 'vijf' }, 'geen getal'), ['specificatie-formaat'], 'the formaat still counts without a lengte');
    assert.deepEqual(codes({ formaat: 'tekst', lengte: '5', waardenverzameling: [] }, 'ja'), [], 'an empty waardenverzameling allows any value');
  });

  it('takes lengte and kardinaliteit written as numbers too', () => {
    assert.deepEqual(codes({ formaat: 'tekst', lengte: 3 }, 'vier'), ['specificatie-lengte']);
    assert.deepEqual(codes({ formaat: 'getal', lengte: 3 }, '1.5'), ['specificatie-lengte'], '`n` alone allows no decimals');
    assert.equal(maxOccurrences({ kardinaliteit: 2 }), 2);
    assert.equal(maxOccurrences({ kardinaliteit: ' 1 ' }), 1);
  });

  it('kardinaliteit N, 0, a word or none is no limit', () => {
    for (const kardinaliteit of ['N', 'n', '0', 'veel', undefined]) assert.equal(maxOccurrences({ kardinaliteit }), undefined, String(kardinaliteit));
    assert.equal(maxOccurrences(undefined), undefined);
  });

  it('the header quotes each text as an HTTP quoted-string of printable ASCII', () => {
    const header = warningHeader([
      { name: 'waarde', code: 'specificatie-formaat', reason: 'Een "aanhaling" en een \\ en één €' },
      { name: 'waarde', code: 'specificatie-lengte', reason: 'Te lang.' },
    ]);
    assert.equal(header, '199 - "specificatie-formaat: Een \\"aanhaling\\" en een \\\\ en ??n ?", 199 - "specificatie-lengte: Te lang."');
  });
});
