import type { SinkOptions } from './options.js';

/** A type pattern: exact, or a prefix ending in `*` (`nl.overheid.zaken.*`). */
const typeMatches = (pattern: string, type: string) => (pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern);

/**
 * Whether a sink takes an event: its type matches one of the sink's `types` (all when none), and
 * `data` has one of the values of every key of its `filters`. A key missing from `data` fails closed
 * (Open Notificaties would ignore it and send more than asked for).
 */
export function sinkTakes(sink: Pick<SinkOptions, 'types' | 'filters'>, type: string, data: Record<string, unknown>): boolean {
  if (sink.types && !sink.types.some((pattern) => typeMatches(pattern, type))) return false;
  for (const [key, wanted] of Object.entries(sink.filters ?? {})) {
    if (!(key in data)) return false;
    const values = Array.isArray(wanted) ? wanted : [wanted];
    if (!values.includes(String(data[key]))) return false;
  }
  return true;
}
