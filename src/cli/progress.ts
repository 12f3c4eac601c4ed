import type { Logger } from '../log.js';

/** How far a long command is: done of total, and how many of each outcome. */
export interface Progress {
  done: number;
  total?: number;
  counters?: Record<string, number>;
}

const BAR = 24;

const duration = (seconds: number) => (seconds >= 3600 ? `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m` : seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(Math.floor(seconds % 60)).padStart(2, '0')}s` : `${Math.ceil(seconds)}s`);

/**
 * Reports progress: on a terminal one bar redrawn in place (done/total, rate, ETA, counters); in a
 * log one line every `intervalMs` with the same figures as fields. `finish` ends the bar's line.
 */
export function progressReporter(label: string, log: Logger, destination: NodeJS.WriteStream = process.stderr, intervalMs = 5000) {
  const started = Date.now();
  let last = 0;
  let drawn = false;
  const figures = (p: Progress) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? p.done / seconds : 0;
    const eta = p.total !== undefined && rate > 0 ? (p.total - p.done) / rate : undefined;
    return { rate, eta };
  };
  const counters = (p: Progress) => Object.entries(p.counters ?? {}).filter(([, n]) => n > 0).map(([name, n]) => `${name} ${n}`).join(', ');
  const update = (p: Progress, force = false) => {
    const now = Date.now();
    if (!force && now - last < (destination.isTTY ? 100 : intervalMs)) return;
    last = now;
    const { rate, eta } = figures(p);
    if (destination.isTTY) {
      const share = p.total ? Math.min(1, p.done / p.total) : 0;
      const bar = p.total ? `[${'#'.repeat(Math.round(share * BAR)).padEnd(BAR)}] ${Math.floor(share * 100)}% ` : '';
      const of = p.total !== undefined ? `/${p.total}` : '';
      destination.write(`\r${label} ${bar}${p.done}${of} ${Math.round(rate)}/s${eta !== undefined ? ` ETA ${duration(eta)}` : ''}${counters(p) ? ` (${counters(p)})` : ''}\x1b[K`);
      drawn = true;
    } else {
      log.info(`${label}: ${p.done}${p.total !== undefined ? ` of ${p.total}` : ''}, ${Math.round(rate)}/s${eta !== undefined ? `, ETA ${duration(eta)}` : ''}`, { done: p.done, total: p.total, rate: Math.round(rate), ...p.counters });
    }
  };
  return {
    update: (p: Progress) => update(p),
    finish(p: Progress) {
      update(p, true);
      if (drawn) destination.write('\n');
    },
  };
}
