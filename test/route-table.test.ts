import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { routeTable } from '../src/http/route-table.js';

/** The route table on its own, in an Express app: what each request reached, or which error. */
describe('the route table', () => {
  let server: Server;
  let base: string;
  const answer = (name: string): RequestHandler => (req, res) => void res.set('x-name', name).json({ name, method: req.method, params: req.params });

  before(async () => {
    const app = express();
    app.use(
      routeTable([
        { path: '/zaken', handlers: new Map([['GET', answer('list')]]), otherMethods: answer('other') },
        { path: '/zaken/_zoek', handlers: new Map([['POST', answer('search')]]), otherMethods: answer('other') },
        {
          path: '/zaken/{uuid}',
          handlers: new Map<string, RequestHandler>([
            ['GET', answer('detail')],
            ['DELETE', async () => Promise.reject(new Error('rejected'))],
            ['PUT', () => { throw new Error('thrown'); }],
          ]),
          otherMethods: answer('other'),
        },
        { path: '/zaken/{zaak_uuid}/eigenschappen/{uuid}', handlers: new Map([['GET', answer('nested')]]), otherMethods: answer('other') },
      ]),
    );
    app.use((_req: Request, res: Response) => void res.status(404).json({ name: 'unmatched' }));
    app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => void res.status(error.status ?? 500).json({ error: error.message }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const call = async (path: string, method = 'GET') => {
    const response = await fetch(base + path, { method });
    return { status: response.status, name: response.headers.get('x-name'), body: (method === 'HEAD' ? undefined : await response.json()) as any };
  };

  it('runs the handler of the method on the path that matches, with its parameters decoded', async () => {
    assert.deepEqual((await call('/zaken')).body, { name: 'list', method: 'GET', params: {} });
    assert.deepEqual((await call('/zaken/a%20b')).body, { name: 'detail', method: 'GET', params: { uuid: 'a b' } });
    assert.deepEqual((await call('/zaken/z1/eigenschappen/e1')).body.params, { zaak_uuid: 'z1', uuid: 'e1' });
  });

  it('tries paths in the order given: a static path declared first wins over a parameter', async () => {
    assert.equal((await call('/zaken/_zoek', 'POST')).body.name, 'search');
    assert.equal((await call('/zaken/_zoek', 'GET')).body.name, 'other', 'the first match decides, as with Express routes');
  });

  it('answers HEAD with the GET handler, other methods with otherMethods', async () => {
    assert.deepEqual(await call('/zaken/x', 'HEAD'), { status: 200, name: 'detail', body: undefined });
    assert.deepEqual((await call('/zaken/x', 'PATCH')).body, { name: 'other', method: 'PATCH', params: { uuid: 'x' } });
    assert.equal((await call('/zaken', 'OPTIONS')).body.name, 'other');
  });

  it('matches case-sensitively and strictly: another case, a trailing slash or an empty segment goes on', async () => {
    for (const path of ['/Zaken', '/zaken/', '/zaken/x/', '/zaken//eigenschappen/e1', '/zaken/x/eigenschappen', '/elders']) {
      assert.deepEqual(await call(path), { status: 404, name: null, body: { name: 'unmatched' } }, path);
    }
  });

  it('passes a malformed %-encoding on as a 400, and what a handler throws or rejects as the error it is', async () => {
    assert.deepEqual(await call('/zaken/%zz'), { status: 400, name: null, body: { error: 'URI malformed' } });
    assert.deepEqual(await call('/zaken/x', 'DELETE'), { status: 500, name: null, body: { error: 'rejected' } });
    assert.deepEqual(await call('/zaken/x', 'PUT'), { status: 500, name: null, body: { error: 'thrown' } });
  });
});
