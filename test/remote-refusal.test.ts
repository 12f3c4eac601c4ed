import assert from 'node:assert/strict';
import { refusalSummary } from '../src/remote/problem-summary.js';

describe('refusalSummary: what another API said when it refused a call', () => {
  it('a problem as its title, detail and invalidParams; other text as it came; both truncated', () => {
    assert.equal(
      refusalSummary(JSON.stringify({ title: 'Invalid input.', status: 400, invalidParams: [{ name: 'kanaal', code: 'kanaal_bestaat_niet', reason: 'Kanaal bestaat niet.' }, { name: 'x', code: 'required' }] })),
      'Invalid input.: kanaal: Kanaal bestaat niet.; x: required',
    );
    assert.equal(refusalSummary(JSON.stringify({ title: 'Niet gevonden.', detail: 'Geen zaak met deze uuid.' })), 'Niet gevonden.: Geen zaak met deze uuid.');
    assert.equal(refusalSummary('<html>\n  <body>Bad Gateway</body>\n</html>'), '<html> <body>Bad Gateway</body> </html>');
    assert.equal(refusalSummary(''), '');
    const long = refusalSummary(JSON.stringify({ title: 'Fout', detail: 'x'.repeat(1000) }));
    assert.equal(long.length, 300);
    assert.ok(long.endsWith('…'));
  });
});
