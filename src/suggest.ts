/**
 * The name a mistyped one most probably meant, for "did you mean …?" in errors: the one candidate it
 * is a prefix of (or that is a prefix of it), else the nearest by edit distance when at most about a
 * third of its letters differ. Case is ignored.
 */
export function closest(wanted: string, candidates: Iterable<string>): string | undefined {
  const lower = wanted.toLowerCase();
  const all = [...candidates];
  const prefixed = all.filter((candidate) => {
    const other = candidate.toLowerCase();
    return other.startsWith(lower) || lower.startsWith(other);
  });
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of all) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(wanted.length / 3)) ? best : undefined;
}

/** Edit distance: insertions, deletions, substitutions and a swap of two neighbours (`prot` → `port`) count one each. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** Other words for the standard's actions (`zaak_read` is `zaak_retrieve`). */
const ACTION_SYNONYMS: Record<string, string> = {
  read: 'retrieve',
  get: 'retrieve',
  detail: 'retrieve',
  delete: 'destroy',
  remove: 'destroy',
  patch: 'partial_update',
  put: 'update',
  post: 'create',
  add: 'create',
  search: '_zoek',
  zoek: '_zoek',
};

/** The known id meant by a misspelt one: the same resource with the standard's word for the action, else the nearest spelling. */
export function closestOperation(id: string, operationIds: ReadonlySet<string>): string | undefined {
  const [, resource, action] = /^(.*?)_+([^_]+)$/.exec(id) ?? [];
  const synonym = action && ACTION_SYNONYMS[action.toLowerCase()];
  if (synonym && operationIds.has(`${resource}_${synonym}`)) return `${resource}_${synonym}`;
  return closest(id, operationIds);
}
