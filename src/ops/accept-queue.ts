import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';

/**
 * How many connections the kernel has accepted for `server` that the process has not taken yet, on
 * Linux (its listening socket's receive queue in /proc/net/tcp or tcp6); undefined elsewhere, or when
 * the socket is not found. Closing a listener resets those connections, whose clients have already
 * sent their requests.
 */
export function waitingConnections(server: Server): number | undefined {
  const address = server.address();
  if (!address || typeof address === 'string') return undefined;
  let table: string;
  try {
    table = readFileSync(address.family === 'IPv6' ? '/proc/net/tcp6' : '/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  const port = `:${address.port.toString(16).toUpperCase().padStart(4, '0')}`;
  let waiting: number | undefined;
  for (const line of table.split('\n').slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue …; state 0A is LISTEN.
    const [, local, , state, queues] = line.trim().split(/\s+/);
    if (state !== '0A' || !local?.endsWith(port)) continue;
    waiting = (waiting ?? 0) + parseInt(queues.split(':')[1], 16);
  }
  return waiting;
}
