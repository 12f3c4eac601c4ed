import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';

/** Where to listen: the host given; without one, every interface, but only loopback in development mode (no authentication). */
export const listenHost = (host: string | undefined, development: boolean): string | undefined => host ?? (development ? '127.0.0.1' : undefined);

const isLoopback = (address: string) => address === '::1' || address.startsWith('127.') || address === '::ffff:127.0.0.1';

/** A bound address as a URL (`http://127.0.0.1:8000`), saying so when it is every interface. */
export function listeningOn(address: AddressInfo, scheme: string): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const every = address.address === '::' || address.address === '0.0.0.0';
  return `${scheme}://${host}:${address.port}${every ? ' (every interface)' : ''}`;
}

/** Development mode says where it listens, and warns when that is reachable from the network. */
export function logDevelopmentListening(log: Logger, address: AddressInfo, scheme: string): void {
  const listening = listeningOn(address, scheme);
  if (isLoopback(address.address)) log.info(`development mode: listening on ${listening} only (loopback; give a host to listen elsewhere)`);
  else log.warn(`development mode without authentication is reachable from the network (listening on ${listening}): never with real data`);
}
