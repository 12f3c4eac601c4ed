import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { chain } from '../src/http/chain.js';

type Steps = { steps: string[] };
const stepsOf = (res: Response) => ((res.locals as Steps).steps ??= []);
const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    stepsOf(res).push(name);
    next();
  };
/** Steps that ran after the request was answered: none may. */
const late: string[] = [];
const never: RequestHandler = (req, _res, next) => {
  late.push(req.originalUrl);
  next();
};

/** Each scenario's handlers, run as Express's own stack and as one chained layer: the outcomes must be the same. */
const scenarios: Record<string, RequestHandler[]> = {
  'in order': [step('a'), step('b')],
  "next('route') goes on": [step('a'), (_req, _res, next) => next('route'), step('b')],
  'a falsy error goes on': [step('a'), (_req, _res, next) => next(false), step('b')],
  'an error passed': [step('a'), (_req, _res, next) => next(new Error('passed')), never],
  'thrown after an asynchronous next': [(_req, _res, next) => void setImmediate(next), () => { throw new Error('thrown'); }, never],
  rejected: [step('a'), async () => Promise.reject(new Error('rejected')), never],
  'rejected without a reason': [step('a'), async () => Promise.reject(0), never],
  answered: [step('a'), (_req, res) => void res.json({ answered: stepsOf(res) }), never],
  "next('router') leaves the router": [step('a'), (_req, _res, next) => next('router'), never],
};

describe('chain', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    const api = express.Router();
    Object.values(scenarios).forEach((handlers, i) => {
      api.use(`/plain/${i}`, ...handlers, (_req: Request, res: Response) => void res.json({ after: stepsOf(res) }));
      api.use(`/chained/${i}`, chain(handlers), (_req: Request, res: Response) => void res.json({ after: stepsOf(res) }));
    });
    api.use((error: Error, _req: Request, res: Response, _next: NextFunction) => void res.status(500).json({ error: error.message, steps: stepsOf(res) }));
    app.use(api);
    app.use((_req, res) => void res.status(404).json({ outside: true }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const get = async (path: string) => {
    const response = await fetch(base + path);
    const outcome = { status: response.status, body: await response.json() };
    await new Promise((resolve) => setTimeout(resolve, 10));
    return outcome;
  };

  it('gives each scenario the outcome Express gives the same handlers as separate layers', async () => {
    const outcomes: Record<string, unknown> = {};
    for (const [i, name] of Object.keys(scenarios).entries()) {
      const chained = await get(`/chained/${i}`);
      assert.deepEqual(chained, await get(`/plain/${i}`), name);
      outcomes[name] = chained;
    }
    assert.deepEqual(late, [], 'no handler runs after an error or an answer');
    assert.deepEqual(outcomes, {
      'in order': { status: 200, body: { after: ['a', 'b'] } },
      "next('route') goes on": { status: 200, body: { after: ['a', 'b'] } },
      'a falsy error goes on': { status: 200, body: { after: ['a', 'b'] } },
      'an error passed': { status: 500, body: { error: 'passed', steps: ['a'] } },
      'thrown after an asynchronous next': { status: 500, body: { error: 'thrown', steps: [] } },
      rejected: { status: 500, body: { error: 'rejected', steps: ['a'] } },
      'rejected without a reason': { status: 500, body: { error: 'Rejected promise', steps: ['a'] } },
      answered: { status: 200, body: { answered: ['a'] } },
      "next('router') leaves the router": { status: 404, body: { outside: true } },
    });
  });
});
