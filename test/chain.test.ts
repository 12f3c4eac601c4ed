import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { chain } from '../src/http/chain.js';

/** Middleware chained into one layer behave as the same middleware in Express's own stack. */
describe('chain', () => {
  let server: Server;
  let base: string;
  const step = (name: string): RequestHandler => (req, _res, next) => {
    (req as Request & { steps?: string[] }).steps = [...((req as Request & { steps?: string[] }).steps ?? []), name];
    next();
  };
  const steps = (req: Request) => (req as Request & { steps?: string[] }).steps ?? [];

  before(async () => {
    const app = express();
    app.use('/ok', chain([step('a'), step('b')]), (req, res) => void res.json(steps(req)));
    app.use('/passed', chain([step('a'), (_req, _res, next) => next(new Error('passed')), step('never')]));
    app.use('/thrown', chain([step('a'), () => { throw new Error('thrown'); }, step('never')]));
    app.use('/rejected', chain([step('a'), async () => Promise.reject(new Error('rejected')), step('never')]));
    app.use('/answered', chain([step('a'), (req, res) => void res.json(steps(req)), step('never')]), (_req, res) => void res.json(['after']));
    app.use((error: Error, req: Request, res: Response, _next: NextFunction) => void res.status(500).json({ error: error.message, steps: steps(req) }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const get = async (path: string) => {
    const response = await fetch(base + path);
    return { status: response.status, body: await response.json() };
  };

  it('runs the handlers in order, then what follows the chain', async () => {
    assert.deepEqual(await get('/ok'), { status: 200, body: ['a', 'b'] });
  });

  it('ends at an error passed to next, thrown or rejected, which reaches the error handler', async () => {
    for (const error of ['passed', 'thrown', 'rejected']) assert.deepEqual(await get(`/${error}`), { status: 500, body: { error, steps: ['a'] } });
  });

  it('stops at a handler that answers', async () => {
    assert.deepEqual(await get('/answered'), { status: 200, body: ['a'] });
  });
});
