import assert from 'node:assert/strict';
import { refusalSummary } from '../src/remote/problem-summary.js';
import { retryAfterMs } from '../src/remote/fetch.js';

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

describe('retryAfterMs: when a refusing remote asks to be called again', () => {
  it('reads delay-seconds and an HTTP date; nothing for an absent or unreadable value', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs(['5', '7'], now), 5000);
    assert.equal(retryAfterMs('Fri, 27 Nov 2026 10:01:30 GMT', now), 90_000);
    assert.equal(retryAfterMs('Fri, 27 Nov 2026 09:00:00 GMT', now), 0, 'a moment past is now');
    assert.equal(retryAfterMs(undefined, now), undefined);
    assert.equal(retryAfterMs('straks', now), undefined);
  });
});
