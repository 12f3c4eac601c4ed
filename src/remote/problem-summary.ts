/** How much of another registry's refusal is kept in an error message (and so in the outbox's last error). */
const MAX_SUMMARY = 300;

/**
 * What another API said when it refused a call, in one line: a problem's title, detail and
 * invalidParams (`Invalid input.: kanaal: kanaal_bestaat_niet`), or the start of any other body;
 * truncated. Empty when it said nothing.
 */
export function refusalSummary(body: string): string {
  let summary = body.replace(/\s+/g, ' ').trim();
  try {
    const problem = JSON.parse(body) as Record<string, unknown>;
    if (problem && typeof problem === 'object' && !Array.isArray(problem)) {
      const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
      const params = Array.isArray(problem.invalidParams)
        ? (problem.invalidParams as Record<string, unknown>[]).map((p) => `${text(p?.name)}: ${text(p?.reason) || text(p?.code)}`).join('; ')
        : '';
      const parts = [text(problem.title), text(problem.detail), params].filter(Boolean);
      if (parts.length) summary = parts.join(': ');
    }
  } catch {
    // Not JSON: the text as it came.
  }
  return summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary;
}
