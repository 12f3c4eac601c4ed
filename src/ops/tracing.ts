import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { Knex } from 'knex';
import { scopeOf } from './request-scope.js';

/**
 * Spans through `@opentelemetry/api` only: without an SDK registered by the host, every call here is
 * a no-op. Requests, database queries, remote fetches and outbox deliveries each get one.
 */
const tracer = () => trace.getTracer('zaakregister');

function ended(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Runs `work` in an active span (children nest under it); a throw marks the span as failed. */
export async function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const result = await work();
      ended(span);
      return result;
    } catch (error) {
      ended(span, error);
      throw error;
    }
  });
}

/** A span the caller ends (remote fetches): `end(error?)`. */
export function startSpan(name: string, attributes: Attributes, kind = SpanKind.CLIENT): { span: Span; end(error?: unknown): void } {
  const span = tracer().startSpan(name, { kind, attributes });
  return { span, end: (error?: unknown) => ended(span, error) };
}

/** Router middleware: one server span per API request, named by its route template once routed. */
export function traceRequests(req: Request, res: Response, next: NextFunction): void {
  const span = tracer().startSpan(`${req.method} ${req.baseUrl}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } });
  // Without an SDK the span is a no-op with no context to pass on: no listener, no context switch.
  if (!isSpanContextValid(span.spanContext())) return next();
  res.once('close', () => {
    const scope = scopeOf(req);
    if (scope?.route) span.updateName(`${req.method} ${req.baseUrl}${scope.route}`);
    span.setAttributes({
      'http.response.status_code': res.statusCode,
      ...(scope?.route && { 'http.route': scope.route }),
      ...(scope?.operation && { 'zaakregister.operation': scope.operation }),
      ...(scope && { 'zaakregister.request_id': scope.id }),
    });
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), next);
}

/**
 * One client span per database query, from knex's query events (transactions' queries included).
 * Returns what stops it: a storage outlives the registries that used it one after another.
 */
export function traceQueries(knex: Knex): () => void {
  const open = new Map<string, Span>();
  const start = (query: { __knexQueryUid: string; method?: string }) => {
    open.set(query.__knexQueryUid, tracer().startSpan(`db ${query.method ?? 'query'}`, { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } }));
  };
  const finish = (error: unknown, query: { __knexQueryUid: string }) => {
    const span = open.get(query.__knexQueryUid);
    open.delete(query.__knexQueryUid);
    if (span) ended(span, error);
  };
  const answered = (_response: unknown, query: { __knexQueryUid: string }) => finish(undefined, query);
  const failed = (error: unknown, query: { __knexQueryUid: string }) => finish(error, query);
  knex.on('query', start);
  knex.on('query-response', answered);
  knex.on('query-error', failed);
  return () => {
    knex.off('query', start);
    knex.off('query-response', answered);
    knex.off('query-error', failed);
  };
}
