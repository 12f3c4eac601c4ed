import type { Knex } from 'knex';
import type { Operation } from '../operation.js';
import type { PluginHost } from '../plugin-host.js';
import type { OperationRunner, RegistryServices, RequestContext } from '../plugin.js';
import type { Storage } from '../storage/types.js';
import { checkScopes, parseBody, requestParts, validateWrite } from './pipeline.js';

/**
 * The registry's services as a part sees them: its storage is the request's transaction, so the
 * part's reads (and those of its hooks) see what the parts before it wrote, and take no second
 * connection (PGlite has one; PostgreSQL would not see the uncommitted rows).
 */
function servicesIn(services: RegistryServices, tx: Knex.Transaction): RegistryServices {
  const storage: Storage = Object.create(services.storage, {
    knex: { value: tx },
    transaction: { value: <T>(work: (inner: Knex.Transaction) => Promise<T>) => work(tx) },
  });
  return Object.create(services, { storage: { value: storage } });
}

/**
 * `registry.operations`: write operations run as parts of a write request, in its transaction, through
 * the steps of the request lifecycle a request of their own takes inside the registry (see
 * `OperationRunner.run`). `operations` is read at each call: plugins add theirs while the registry is assembled.
 */
export function operationRunner(operations: () => readonly Operation[], host: PluginHost, services: () => RegistryServices): OperationRunner {
  let byId: Map<string, Operation> | undefined;
  const operation = (id: string) => {
    byId ??= new Map(operations().map((o) => [o.id, o]));
    const found = byId.get(id);
    if (!found) throw new Error(`operations.run: this registry serves no operation "${id}"`);
    if (!found.write) throw new Error(`operations.run: "${id}" does not write; only writes run as parts of a request`);
    return found;
  };
  const inTransaction = new WeakMap<Knex.Transaction, RegistryServices>();

  return {
    async run(parent, id, input = {}) {
      const tx = parent.tx;
      if (!tx) throw new Error('operations.run: only inside a write transaction (an operation\'s execute)');
      const op = operation(id);
      let registry = inTransaction.get(tx);
      if (!registry) inTransaction.set(tx, (registry = servicesIn(services(), tx)));
      const ctx: RequestContext = {
        requestId: parent.requestId,
        registry,
        apiVersion: parent.apiVersion,
        operation: op,
        req: parent.req,
        baseUrl: parent.baseUrl,
        params: { ...input.params },
        query: {},
        principal: parent.principal,
        tx,
        db: tx,
        response: { status: 200, headers: {} },
        partOf: parent,
      };
      ctx.body = parseBody(op, input.body ?? {}, registry.strictNulls);
      await op.load?.(ctx);
      checkScopes(op, ctx);
      await op.prepare?.(ctx);
      ctx.data ??= { ...ctx.body };
      await host.run('authorize', ctx);
      await validateWrite(op, host, ctx);
      if (op.lock) {
        await op.lock(ctx);
        checkScopes(op, ctx);
        await host.run('authorize', ctx);
      }
      await host.run('beforeWrite', ctx);
      await op.execute(ctx);
      await host.run('afterWrite', ctx);
      let request = parent;
      while (request.partOf) request = request.partOf;
      const parts = requestParts.get(request);
      if (parts) parts.push(ctx);
      else requestParts.set(request, [ctx]);
      return { status: ctx.response.status, result: ctx.result };
    },
  };
}
