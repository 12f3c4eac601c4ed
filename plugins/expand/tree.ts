import { ProblemError } from '../../src/plugin-api.js';
import { RELATIONS, type LocalKind } from './relations.js';

/** A parsed `expand`: per attribute, what to expand inside it. */
export type ExpandTree = Map<string, ExpandTree>;

/** The 404 of zrc-027: `path` names an attribute the resource does not have, or one that links nothing. */
export function invalidField(path: string, reason: string): ProblemError {
  return new ProblemError('invalid-expand-field', { detail: `${path}: ${reason}`, invalidParams: [{ name: 'expand', code: 'invalid-expand-field', reason: `${path}: ${reason}` }] });
}

/** `a.b, a.c,d` → one tree, without checking the attributes. */
function treeOf(value: string): ExpandTree {
  const tree: ExpandTree = new Map();
  for (const path of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    let node = tree;
    for (const field of path.split('.').map((f) => f.trim())) {
      if (!field) throw invalidField(path, 'een leeg attribuut.');
      if (!node.has(field)) node.set(field, new Map());
      node = node.get(field)!;
    }
  }
  return tree;
}

/**
 * Checks a tree against what a resource of this registry can expand, down to where it reaches a
 * remote resource: those attributes are checked once it is fetched. `prefix` is the path to `kind`.
 * A loop, not recursion: a path may be as deep as a request body is long.
 */
export function checkTree(kind: LocalKind, tree: ExpandTree, prefix = ''): void {
  const pending: [LocalKind, ExpandTree, string][] = [[kind, tree, prefix]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [at, node, path] = next;
    for (const [field, subtree] of node) {
      const relation = Object.hasOwn(RELATIONS[at], field) ? RELATIONS[at][field] : undefined;
      if (!relation) throw invalidField(path + field, `${field} is geen uit te breiden attribuut van ${at}.`);
      if (relation.target !== 'remote') pending.push([relation.target, subtree, `${path}${field}.`]);
    }
  }
}

/**
 * `zaaktype, status.statustype` → a tree for a resource of `root`, at any depth, checked before
 * anything is read: an attribute the resource (or one of this registry it links) does not have is a
 * 404 `invalid-expand-field` (zrc-027).
 */
export function parseExpand(value: string, root: LocalKind = 'zaak'): ExpandTree {
  const tree = treeOf(value);
  checkTree(root, tree);
  return tree;
}

/** Both trees in one: every path of either. */
export function mergeTrees(into: ExpandTree, from: ExpandTree): ExpandTree {
  const pending: [ExpandTree, ExpandTree][] = [[into, from]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [target, source] = next;
    for (const [field, subtree] of source) {
      const existing = target.get(field);
      if (existing) pending.push([existing, subtree]);
      else target.set(field, subtree);
    }
  }
  return into;
}
