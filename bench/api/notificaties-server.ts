/**
 * A Notificaties API that takes every notification (`201`) and keeps nothing: where the benchmark's
 * notifying registry delivers what its writes enqueue in the outbox. Prints `ready <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') received++;
    // `GET /received`: how many arrived, so the bench can tell that the notifying registry delivered.
    const body = req.method === 'POST' ? '{}' : req.url === '/received' ? String(received) : '[]';
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' }).end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(`ready ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', () => process.exit(0));
