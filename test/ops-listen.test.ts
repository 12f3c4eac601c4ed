import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { createRegistry, staticAuthorizations, type Logger, type Registry, type RegistryOptions } from '../src/index.js';

/** A logger that keeps its lines, by level. */
function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const logger: Logger = {
    debug: (message) => lines.push({ level: 'debug', message }),
    info: (message) => lines.push({ level: 'info', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
  return { lines, logger };
}

/** An IPv4 address of this machine other than loopback, when it has one. */
const externalAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === 'IPv4' && !address.internal)?.address;

describe('registry.listen from code', () => {
  const registries: Registry[] = [];
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((registry) => registry.close()));
  });

  async function listening(options: RegistryOptions, host?: string) {
    const { lines, logger } = recordingLogger();
    const registry = await createRegistry({ preset: 'none', logger, ...options });
    registries.push(registry);
    const server = await registry.listen(0, host);
    return { address: server.address() as AddressInfo, lines };
  }

  it('in development mode without a host listens on 127.0.0.1 only, and says where', async () => {
    const { address, lines } = await listening({ authorization: 'development' });
    assert.equal(address.address, '127.0.0.1');
    assert.equal((await fetch(`http://127.0.0.1:${address.port}/zaken/api/v1/zaken`)).status, 200);
    const external = externalAddress();
    if (external) await assert.rejects(fetch(`http://${external}:${address.port}/zaken/api/v1/zaken`), /fetch failed/);
    assert.ok(
      lines.some((line) => line.level === 'info' && line.message.includes(`listening on http://127.0.0.1:${address.port} only`)),
      lines.map((line) => line.message).join('\n'),
    );
  });

  it('in development mode honours a host given, with a warning when it is reachable from the network', async () => {
    const { address, lines } = await listening({ authorization: 'development' }, '0.0.0.0');
    assert.equal(address.address, '0.0.0.0');
    const warnings = lines.filter((line) => line.level === 'warn' && /reachable from the network \(listening on http:\/\/0\.0\.0\.0:\d+ \(every interface\)\)/.test(line.message));
    assert.equal(warnings.length, 1, lines.map((line) => line.message).join('\n'));

    const loopback = await listening({ authorization: 'development' }, '127.0.0.2');
    assert.equal(loopback.address.address, '127.0.0.2');
    assert.ok(!loopback.lines.some((line) => line.level === 'warn' && /reachable from the network/.test(line.message)));
  });

  it('with authentication listens on every interface by default, as before', async () => {
    const clients = { zac: 'a-secret-of-at-least-thirty-two-bytes' };
    const source = staticAuthorizations([{ clientIds: ['zac'], label: 'ZAC', heeftAlleAutorisaties: true, autorisaties: [] }]);
    const { address, lines } = await listening({ authorization: { source, clients } });
    assert.match(address.address, /^(0\.0\.0\.0|::)$/);
    assert.ok(!lines.some((line) => /development mode/.test(line.message)));
  });
});
