import { randomUUID } from 'node:crypto';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { Knex } from 'knex';
import { DeliveryError, type Delivery, type MetricCounter, type OutboxDelivery, type Plugin, type RegistryServices, type ResourceChange } from '../../src/plugin-api.js';
import { handelingOf, mijnOverheidTrigger, nrcEvent, TYPE_PREFIX, zaakData, zaakSubject, type EventDraft } from './events.js';
import { addLaatstFields, LAATST_MIGRATION, representLaatst, storeLaatstGeopend, touchLaatstGemuteerd } from './laatst.js';
import { checkCloudEventsOptions, profilesOf, type CloudEventsOptions } from './options.js';
import { makeSink, type Sink } from './sink.js';
import { sinkTakes } from './matching.js';

export { cloudEventsOptionsSchema, type CloudEventsOptions, type SinkOptions as CloudEventsSink, type SinkAuth as CloudEventsSinkAuth, type Profile as CloudEventsProfile } from './options.js';
export { encodeHeaderValue, decodeHeaderValue } from './sink.js';

const KIND = 'cloudevents';

/** What one transaction has enqueued so far: at most one `zaak-gemuteerd` (and one of each other event) per zaak. */
interface Enqueued {
  tx: Knex.Transaction;
  /** `<type> <zaak URL>` of the mijn-overheid events enqueued. */
  events: Set<string>;
  destroyed: Set<string>;
  /** Per sink and type, counted once the transaction commits. */
  counts: Map<string, { sink: string; type: string; n: number }>;
}

/** The W3C trace context of the write, so a consumer can join its trace (CloudEvents distributed-tracing extension). */
function traceContext(): { traceparent?: string; tracestate?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context)) return {};
  const state = context.traceState?.serialize();
  return { traceparent: `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, '0')}`, ...(state ? { tracestate: state } : {}) };
}

/**
 * CloudEvents (NL GOV profile) of the zaken: the `mijn-overheid` family (Open Zaak's events) and the
 * `nrc` family (one per classic notification). Each event is written to the outbox in the transaction
 * of its change, one delivery per matching sink with its own ordering key, and sent after commit to a
 * webhook or Open Notificaties, retried with the outbox's backoff. The event's `id` is chosen then: the
 * same on every retry and at every sink.
 */
export function cloudevents(options: CloudEventsOptions): Plugin {
  checkCloudEventsOptions(options);
  const profiles = profilesOf(options);
  const extraResources = new Set(options.mijnOverheidExtraResources ?? []);
  const laatstGeopend = options.laatstGeopend ?? false;
  const perTransaction = new WeakMap<Knex.Transaction, Enqueued>();
  let services: RegistryServices;
  let sinks: Sink[] = [];
  let counters: { enqueued: MetricCounter; delivered: MetricCounter; failed: MetricCounter };

  function enqueuedIn(tx: Knex.Transaction): Enqueued {
    let state = perTransaction.get(tx);
    if (!state) perTransaction.set(tx, (state = { tx, events: new Set(), destroyed: new Set(), counts: new Map() }));
    return state;
  }

  /** Counts an enqueued event once its transaction commits: a rolled-back write enqueued nothing. */
  function count(state: Enqueued, sink: string, type: string): void {
    if (!state.counts.size) {
      const counted = state.counts;
      state.tx.executionPromise?.then(
        () => counted.forEach(({ n, ...labels }) => counters.enqueued.inc(labels, n)),
        () => undefined,
      );
    }
    const key = `${sink} ${type}`;
    const counted = state.counts.get(key) ?? { sink, type, n: 0 };
    counted.n++;
    state.counts.set(key, counted);
  }

  const dataref = (zaakUrl: string) => (options.dataref === 'path' ? new URL(zaakUrl).pathname : zaakUrl);

  /**
   * The mijn-overheid events of a change, each at most once per zaak per transaction, into `drafts`.
   * Returns the zaak whose `laatstGemuteerd` the change sets, if any.
   */
  async function mijnOverheidEvents(change: ResourceChange, state: Enqueued, drafts: EventDraft[]): Promise<string | undefined> {
    const trigger = mijnOverheidTrigger(change, extraResources, laatstGeopend);
    const handeling = handelingOf(change);
    let catalogus: Promise<string> | undefined;
    const catalogusOf = () =>
      (catalogus ??= services.catalog
        .zaaktype(String(change.zaak.zaaktype))
        .then((zaaktype) => String(zaaktype.catalogus ?? ''))
        .catch(() => ''));
    const add = async (kind: string, zaak: string, handelingEvent: boolean) => {
      const key = `${kind} ${zaak}`;
      if (state.events.has(key) || (kind !== 'zaak-verwijderd' && state.destroyed.has(zaak))) return false;
      state.events.add(key);
      drafts.push({ type: TYPE_PREFIX + kind, zaak, subject: zaakSubject(zaak), data: zaakData(change.zaak, await catalogusOf(), handelingEvent) });
      return true;
    };
    if (handeling) await add(handeling, change.hoofdObject, true);
    if (trigger?.kind === 'verwijderd') {
      state.destroyed.add(trigger.zaak);
      await add('zaak-verwijderd', trigger.zaak, false);
    } else if (trigger?.kind === 'geopend') {
      await add('zaak-geopend', trigger.zaak, false);
    } else if (trigger?.kind === 'gemuteerd' && (await add('zaak-gemuteerd', trigger.zaak, false))) {
      return trigger.zaak;
    }
    return undefined;
  }

  /** The outbox rows of the drafts: one per event and sink that takes it, the envelope (and `id`) shared. */
  function deliveries(drafts: EventDraft[], state: Enqueued): Delivery[] {
    const time = new Date().toISOString();
    const tracing = traceContext();
    const rows: Delivery[] = [];
    for (const draft of drafts) {
      const event = {
        specversion: '1.0',
        id: randomUUID(),
        source: options.source,
        type: draft.type,
        subject: draft.subject,
        time,
        datacontenttype: 'application/json',
        dataref: dataref(draft.zaak),
        ...tracing,
        data: draft.data,
      };
      for (const sink of sinks) {
        if (!sinkTakes(sink.options, event.type, draft.data)) continue;
        rows.push({ kind: KIND, target: sink.target, key: `ce:${sink.options.id}:${draft.zaak}`, payload: { sink: sink.options.id, event } });
        count(state, sink.options.id, event.type);
      }
    }
    return rows;
  }

  async function deliver({ payload, signal }: OutboxDelivery): Promise<void> {
    const event = payload.event as Record<string, unknown>;
    const sinkId = String(payload.sink);
    const type = String(event.type);
    const sink = sinks.find((s) => s.options.id === sinkId);
    try {
      if (!sink) throw new DeliveryError(`sink "${sinkId}" is no longer configured: not sent`, { permanent: true });
      await sink.send(event, signal);
    } catch (error) {
      const permanent = error instanceof DeliveryError && error.permanent;
      counters.failed.inc({ sink: sinkId, type, retried: permanent ? 'false' : 'true' });
      if (permanent) services.log.error(`cloudevents: event ${String(event.id)} (${type}, subject ${String(event.subject)}) NOT delivered to sink "${sinkId}": ${(error as Error).message}`);
      throw error;
    }
    counters.delivered.inc({ sink: sinkId, type });
  }

  const plugin: Plugin = {
    name: 'cloudevents',
    setup(api) {
      services = api.registry;
      if (!/^urn:nld:/.test(options.source)) services.log.warn(`cloudevents: source "${options.source}" is no urn:nld: URN; the NL GOV profile asks for urn:nld:oin:<OIN>:systeem:<naam>`);
      sinks = options.sinks.map((sink) => makeSink(sink, services));
      api.addMigrations([LAATST_MIGRATION]);
      if (laatstGeopend) addLaatstFields(api);
      api.addDeliveryHandler(KIND, deliver);
      const labelNames = ['sink', 'type'];
      counters = {
        enqueued: api.addCounter({ name: 'zaakregister_cloudevents_enqueued_total', help: 'CloudEvents written to the outbox (committed), per sink and type', labelNames }),
        delivered: api.addCounter({ name: 'zaakregister_cloudevents_delivered_total', help: 'CloudEvents a sink took (2xx), per sink and type', labelNames }),
        failed: api.addCounter({ name: 'zaakregister_cloudevents_failed_total', help: 'CloudEvent delivery attempts that failed, per sink and type; retried="false": refused for good', labelNames: [...labelNames, 'retried'] }),
      };
    },
    async resourceChanged(change) {
      const state = enqueuedIn(change.tx);
      const drafts: EventDraft[] = [];
      const gemuteerd = profiles.has('mijn-overheid') ? await mijnOverheidEvents(change, state, drafts) : undefined;
      const nrc = profiles.has('nrc') ? nrcEvent(change) : undefined;
      if (nrc) drafts.push(nrc);
      // The outbox rows first: right after the other plugins' (the classic notification's), they travel
      // in one insert with them. The zaak's columns after them, all with the transaction's next statement.
      const rows = drafts.length ? deliveries(drafts, state) : [];
      if (rows.length) await services.outbox.enqueue(change.tx, rows);
      if (!laatstGeopend) return;
      const body = change.ctx?.body;
      if (change.resource === 'zaak' && change.action !== 'destroy' && body && 'laatstGeopend' in body) {
        await storeLaatstGeopend(change.tx, zaakSubject(change.resourceUrl), body.laatstGeopend);
      }
      if (gemuteerd) await touchLaatstGemuteerd(change.tx, zaakSubject(gemuteerd));
    },
    // Only with the option: without it, zaken are shown without a query of this plugin.
    ...(laatstGeopend ? { representZaken: (zaken, scope) => representLaatst(scope.tx ?? scope.db ?? services.storage.knex, zaken) } : {}),
  };
  return plugin;
}
