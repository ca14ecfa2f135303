import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/app-config.js';
import type { WebhooksConfig } from '../config/webhooks-config.js';
import { PeriodicWorker } from '../database/periodic-worker.js';
import { untraced } from '../observability/tracing/trace-context.js';
import { dnsResolver } from './address-policy.js';
import { nextStep } from './retry-policy.js';
import { ChangeNotifier } from '../changes/change-notifier.js';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type EndpointPlace,
  type LogMove,
  type RecordOutcome,
  WebhookDispatchRepository,
} from './webhook-dispatch.repository.js';
import { webhookBody, webhookHeaders } from './webhook-message.js';
import { type SendResult, WebhookSender } from './webhook-sender.js';
import { EndpointBreakers } from './endpoint-breakers.js';
import { WebhookEndpointHealth } from './webhook-endpoint-health.js';
import { WebhooksMetrics } from './webhooks.metrics.js';
import { workerOwner } from '../database/worker-owner.js';

/** Finished deliveries past retention are deleted this many at a time. */
const PURGE_BATCH = 1_000;
/** Outcomes of attempts that end within this long of each other are recorded in one transaction. */
const RECORD_LINGER_MS = 5;
const RECORD_BATCH = 64;
/** A record that failed is tried again this often while its claim holds. */
const RECORD_RETRY_MS = 200;
/** An attempt ends this long before its claim lapses (the database's clock and ours may tick a little apart). */
const LEASE_MARGIN_MS = 1_000;
/**
 * An endpoint has at most this many deliveries pending (made from the change log, not yet finished): beyond them its
 * cursor waits, so an endpoint that does not answer holds a bounded number of rows however many changes are written
 * meanwhile. A proven endpoint (EndpointBreakers) gets as many of the next changes as that leaves room for; one not
 * proven (new, failing, or after a restart) gets one change at a time, and only while none of its deliveries is due
 * or in flight: a probe, whose success proves it, while a poison delivery waiting for its retry holds nothing else up.
 */
export const PENDING_PER_ENDPOINT = 200;
/** Endpoints whose deliveries one look makes from the log, at most (in turn, as the due ones). */
const ENDPOINTS_PER_LOOK = 64;
/**
 * How far into the log one look reads for an endpoint, at most: an endpoint that takes only rare kinds, or one enabled
 * again far behind, passes over the changes it does not take this many at a time, not a delivery's worth.
 */
const CHANGES_PER_LOOK = 10_000;

interface Outcome {
  delivery: ClaimedDelivery;
  /** When the claim lapses, on performance.now()'s clock. */
  leaseEnds: number;
  attempt: AttemptRecord;
  done: { resolve: (recorded: RecordOutcome) => void; reject: (error: unknown) => void };
}

/**
 * Attempts due deliveries, up to WEBHOOKS_CONCURRENCY at once on this replica. Every replica runs one; they share
 * the work through claims on the delivery rows (WebhookDispatchRepository.claim): a claim is a committed
 * conditional update that lasts WEBHOOKS_LEASE_TTL_MS (longer than an attempt may take) and raises the row's
 * epoch, and an outcome is recorded only under the same owner and epoch. A replica that dies mid-attempt leaves
 * its claims to lapse; another replica then attempts those deliveries again (the one request that may reach a
 * receiver twice).
 *
 * Deliveries are made from the change log (docs/architecture.md#the-change-log): each endpoint has a place in it
 * (its cursor, `webhook_cursors`: a seq), and a look that finds an endpoint behind the numbered changes makes its deliveries
 * of the next ones and moves its place, up to PENDING_PER_ENDPOINT pending at once.
 *
 * A look reads every enabled endpoint at least once per WEBHOOKS_POLL_INTERVAL_MS (its poll, a PeriodicWorker: retries
 * come due, an endpoint's back-off ends, another replica numbered changes or enabled an endpoint); so does the next look
 * after an endpoint is enabled or its deliveries are made again through this replica, after an attempt to an endpoint
 * not proven ends, after a look at all of them that moved cursors or took every free slot, and after a look that
 * failed. Numbering on this replica wakes it for the endpoints that can take a delivery of a new change now (`open`:
 * those the last look that read them found neither backing off nor, unless proven, holding a delivery due or in flight
 * or just made), and that look reads only them: an endpoint that hangs, waiting for its probe, costs the writes
 * nothing, however many there are. While none is open, the sequencer is not woken for the dispatcher either (it
 * numbers at its interval, CHANGES_SEQUENCE_INTERVAL_MS, unless another reader waits).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  readonly owner = workerOwner();
  private readonly settings: WebhooksConfig;
  private readonly sender: WebhookSender;
  private readonly inFlight = new Set<Promise<void>>();
  /** The deliveries in flight here: never claimed and sent again while their attempt runs. */
  private readonly attempting = new Set<number>();
  /** Attempts in flight per endpoint: each has a share of the slots at most (endpointShare; one if not proven). */
  private readonly perEndpoint = new Map<number, number>();
  private readonly endpointShare: number;
  private readonly breakers = new EndpointBreakers();
  /** Attempts in flight to endpoints not proven (EndpointBreakers): together at most an endpoint's share. */
  private unprovenInFlight = 0;
  private readonly worker: PeriodicWorker;
  private stopped = false;
  private failing = false;
  private purgedAt = Date.now();
  /** The endpoints a look woken by new changes reads: those the last look that read them found could take one. */
  private readonly open = new Set<number>();
  /**
   * Whether the next look reads every enabled endpoint (set again while a look is out, it holds for the next one), and
   * when the last one that did began (performance.now()).
   */
  private readAllNext = true;
  private readAllAt = -Infinity;
  /** Which endpoint's due deliveries a poll takes first (takeInTurn). */
  private turn = 0;
  /** Where in the endpoints behind the log the next look starts making deliveries: each look goes on after the last one's. */
  private fillTurn = 0;
  private outcomes: Outcome[] = [];
  private recordTimer?: NodeJS.Timeout;
  /** A completed attempt looks for more work only when this many slots are free (fewer, larger claims). */
  private readonly refill: number;

  constructor(
    private readonly deliveries: WebhookDispatchRepository,
    private readonly endpoints: WebhookEndpointHealth,
    private readonly metrics: WebhooksMetrics,
    notifier: ChangeNotifier,
    config: ConfigService<AppConfig, true>,
  ) {
    this.settings = config.get('webhooks', { infer: true });
    this.sender = new WebhookSender(this.settings.timeoutMs, this.settings.allowPrivateNetworks, dnsResolver(this.settings.dnsServers));
    this.refill = Math.max(1, Math.floor(this.settings.concurrency / 4));
    this.endpointShare = Math.max(1, Math.ceil(this.settings.concurrency / 2));
    // Not traced, nor in the async context of the request whose commit woke it (PeriodicWorker).
    this.worker = new PeriodicWorker({
      name: WebhookDispatcher.name,
      intervalMs: this.settings.pollIntervalMs,
      pass: () => untraced(() => this.poll()),
    });
    // More changes numbered on this replica: a look makes their deliveries, to the endpoints that can take them.
    notifier.onAdvance(
      () => {
        if (this.waitsForChanges) this.worker.wake();
      },
      () => this.waitsForChanges,
    );
  }

  /**
   * Whether new changes are work for this dispatcher now: it sends, and an endpoint can take a delivery now or the next
   * look reads them all (with no endpoint enabled, neither).
   */
  private get waitsForChanges(): boolean {
    return this.settings.concurrency > 0 && !this.stopped && (this.open.size > 0 || this.readAllNext);
  }

  /**
   * An endpoint was created or enabled through this replica: numbering wakes the dispatcher again from now on (an
   * endpoint enabled through another replica is found by the next timed poll, WEBHOOKS_POLL_INTERVAL_MS).
   */
  endpointEnabled(): void {
    this.readAllNext = true;
  }

  onApplicationBootstrap(): void {
    if (this.settings.concurrency > 0) this.worker.start();
  }

  /** Waits for the attempts in flight (each bounded by WEBHOOKS_TIMEOUT_MS), so that their outcomes are recorded. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.worker.stop();
    await Promise.all(this.inFlight);
    this.sender.close();
    await this.deliveries.closeDispatcherConnection().catch(() => undefined);
  }

  /** Looks at every enabled endpoint for due deliveries now, or once more after the look in progress. Never throws. */
  kick(): void {
    this.readAllNext = true;
    this.worker.wake();
  }

  /**
   * One look: the deliveries of the changes numbered since the endpoints' cursors (deliverChanges), then the due
   * deliveries; true when it should go round again at once (it moved a cursor, or every free slot was taken, so more
   * may be due behind them). Endpoints whose breaker is open are passed over; proven ones may take every free slot,
   * the others share half of them, one attempt each (EndpointBreakers). At most as many endpoints are read as there
   * are slots to fill, in turn, so the statement's cost does not grow with the number of endpoints that have
   * deliveries due.
   */
  private async poll(): Promise<boolean> {
    let more = false;
    try {
      const free = this.settings.concurrency - this.inFlight.size;
      const readAll = this.readAllNext || performance.now() - this.readAllAt >= this.settings.pollIntervalMs;
      if (free > 0 && (readAll || this.open.size > 0)) {
        const only = readAll ? undefined : [...this.open];
        if (readAll) {
          this.readAllNext = false;
          this.readAllAt = performance.now();
        }
        const { enabled, due: dueEndpoints, lastSeq } = await this.deliveries.dueEndpoints(only);
        if (readAll) this.breakers.retain(new Set(enabled.map(({ webhookId }) => webhookId)));
        const now = performance.now();
        const turn = this.turn++;
        const withDue = new Set(dueEndpoints);
        const made = await this.deliverChanges(enabled, withDue, lastSeq, now);
        this.noteOpen(only ?? [...this.open], enabled, withDue, new Set(made.made), now);
        more = made.again;
        // The endpoints after those this look made deliveries for (ENDPOINTS_PER_LOOK) are read by the next.
        if (readAll && more) this.readAllNext = true;
        const closed = [...new Set([...dueEndpoints, ...made.moved])].filter((webhookId) => !this.breakers.isOpen(webhookId, now));
        const proven = inTurn(
          closed.filter((webhookId) => this.breakers.isProven(webhookId)),
          turn,
        );
        const others = inTurn(
          closed.filter((webhookId) => !this.breakers.isProven(webhookId)),
          turn,
        );
        const othersFree = Math.min(free, this.endpointShare - this.unprovenInFlight);
        const asked = [...proven.slice(0, free), ...others.slice(0, Math.max(0, othersFree))]
          .map((webhookId) => ({
            webhookId,
            limit: Math.min(free, this.breakers.share(webhookId, this.endpointShare) - (this.perEndpoint.get(webhookId) ?? 0)),
          }))
          .filter(({ limit }) => limit > 0);
        const due = (await this.deliveries.due(asked)).filter(({ id }) => !this.attempting.has(id));
        const provenIds = takeInTurn(
          due.filter(({ webhookId }) => this.breakers.isProven(webhookId)),
          free,
          turn,
        );
        const otherIds = takeInTurn(
          due.filter(({ webhookId }) => !this.breakers.isProven(webhookId)),
          Math.min(free - provenIds.length, othersFree),
          turn,
        );
        const ids = [...provenIds, ...otherIds];
        const leaseEnds = performance.now() + this.settings.leaseTtlMs;
        const taken = await this.deliveries.claim(ids, this.owner, this.settings.leaseTtlMs);
        const deliveries = await this.deliveries.claimed(taken, this.owner);
        for (const delivery of deliveries) this.start(delivery, leaseEnds);
        more ||= ids.length === free && deliveries.length > 0;
        // Every slot taken: endpoints outside `open` may have deliveries due that only a look at all of them finds.
        if (readAll && ids.length === free) this.readAllNext = true;
      }
      if (Date.now() - this.purgedAt > this.settings.purgeIntervalMs) await this.purge();
      if (this.failing) this.logger.log('Webhook deliveries resumed');
      this.failing = false;
    } catch (error) {
      // What a look at every endpoint was asked for (a redelivery, an endpoint enabled) is still to do.
      this.readAllNext = true;
      if (!this.failing) this.logger.warn(`Cannot look for due webhook deliveries: ${(error as Error).message}; retrying`);
      this.failing = true;
    }
    return more;
  }

  /**
   * Makes the deliveries of the changes numbered since the place in the log of each endpoint behind it, as far as
   * PENDING_PER_ENDPOINT allows and at most CHANGES_PER_LOOK changes on, for at most ENDPOINTS_PER_LOOK endpoints,
   * each look going on with the endpoints after the last one's. An endpoint whose breaker
   * is open is left where it is: its deliveries are made when it may be attempted again. Answers the endpoints moved,
   * those it made deliveries for, and whether to look again at once.
   */
  private async deliverChanges(
    enabled: EndpointPlace[],
    due: Set<number>,
    lastSeq: number,
    now: number,
  ): Promise<{ moved: number[]; made: number[]; again: boolean }> {
    const behind = enabled.filter(
      ({ webhookId, deliveredThrough }) =>
        deliveredThrough < lastSeq && !this.breakers.isOpen(webhookId, now) && (this.breakers.isProven(webhookId) || !due.has(webhookId)),
    );
    if (behind.length === 0) return { moved: [], made: [], again: false };
    const first = this.fillTurn % behind.length;
    const asked = [...behind.slice(first), ...behind.slice(0, first)].slice(0, ENDPOINTS_PER_LOOK);
    this.fillTurn = first + asked.length;
    const pending = await this.deliveries.pendingUpTo(
      asked.map(({ webhookId }) => webhookId),
      PENDING_PER_ENDPOINT,
    );
    const moves: LogMove[] = asked
      .map(({ webhookId, deliveredThrough, afterChangeId, eventTypes }) => {
        const room = PENDING_PER_ENDPOINT - (pending.get(webhookId) ?? PENDING_PER_ENDPOINT);
        return {
          webhookId,
          from: deliveredThrough,
          to: Math.min(lastSeq, deliveredThrough + CHANGES_PER_LOOK),
          deliveries: this.breakers.isProven(webhookId) ? room : Math.min(1, room),
          afterChangeId,
          eventTypes,
        };
      })
      .filter(({ from, to, deliveries }) => to > from && deliveries > 0);
    const { moved, made } = await this.deliveries.deliverChanges(moves);
    // Another look at once only when this one moved something (it ends once none moves: an endpoint at its cap of
    // pending deliveries, or with a probe out, waits for them to finish rather than for another look).
    return { moved, made, again: moved.length > 0 };
  }

  /**
   * Keeps `open` to the endpoints read that can take a delivery of a new change now: enabled, not backing off, and
   * proven or holding no delivery due (`made`: those this look made deliveries for, which are due now). Those of `read`
   * not found enabled leave it.
   */
  private noteOpen(read: number[], enabled: EndpointPlace[], due: Set<number>, made: Set<number>, now: number): void {
    for (const webhookId of read) this.open.delete(webhookId);
    for (const { webhookId } of enabled) {
      const free = this.breakers.isProven(webhookId) || (!due.has(webhookId) && !made.has(webhookId));
      if (free && !this.breakers.isOpen(webhookId, now)) this.open.add(webhookId);
    }
  }

  private start(delivery: ClaimedDelivery, leaseEnds: number): void {
    const proven = this.breakers.isProven(delivery.webhookId);
    if (!proven) this.unprovenInFlight++;
    this.attempting.add(delivery.id);
    this.perEndpoint.set(delivery.webhookId, (this.perEndpoint.get(delivery.webhookId) ?? 0) + 1);
    const attempt = this.attempt(delivery, leaseEnds)
      .catch((error: unknown) => this.logger.warn(`Webhook delivery ${delivery.id} not recorded: ${(error as Error).message}`))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.attempting.delete(delivery.id);
        if (!proven) this.unprovenInFlight--;
        const left = this.perEndpoint.get(delivery.webhookId)! - 1;
        if (left > 0) this.perEndpoint.set(delivery.webhookId, left);
        else this.perEndpoint.delete(delivery.webhookId);
        // The next look reads every endpoint after an attempt to one not proven (a slot they share came free).
        if (!proven) this.readAllNext = true;
        if (this.inFlight.size === 0 || this.settings.concurrency - this.inFlight.size >= this.refill) this.worker.wake();
      });
    this.inFlight.add(attempt);
  }

  private async attempt(delivery: ClaimedDelivery, leaseEnds: number): Promise<void> {
    // The request must end while the claim holds: after it lapses another replica may send the delivery too.
    const leaseLeftMs = Math.floor(leaseEnds - performance.now() - LEASE_MARGIN_MS);
    if (leaseLeftMs < 100) {
      this.logger.warn(`Webhook delivery ${delivery.id}: claim about to lapse before the attempt began; left to lapse`);
      return;
    }
    const attemptedAt = new Date();
    const body = webhookBody(delivery.type, delivery.occurredAt, delivery.payload);
    const headers = webhookHeaders(delivery.secrets, delivery.eventId, attemptedAt, body);
    const result = await this.sender.send(delivery.url, headers, body, Math.min(this.settings.timeoutMs, leaseLeftMs));
    this.learn(delivery.webhookId, result);
    const attempts = delivery.attempts + 1;
    const step = nextStep(result, attempts, this.settings.retryScheduleMs);
    const recorded = await this.record(delivery, leaseEnds, {
      status: step.status,
      attemptedAt,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      nextAttemptInMs: step.status === 'pending' ? step.delayMs : null,
    });
    if (recorded === 'gone') {
      this.metrics.attempted('endpoint_deleted', delivery.occurredAt);
      this.logger.log(`Webhook delivery ${delivery.id}: its endpoint was deleted during the attempt`);
      return;
    }
    if (recorded === 'lease_lost') {
      this.metrics.attempted('lease_lost', delivery.occurredAt);
      this.logger.warn(`Webhook delivery ${delivery.id}: claim lapsed during the attempt; another replica has it`);
      return;
    }
    this.metrics.attempted(step.status === 'pending' ? 'retrying' : step.status, delivery.occurredAt);
    if (step.status === 'pending') await this.deliveries.postponeChain(delivery, step.delayMs);
    if (step.status === 'succeeded') await this.endpoints.succeeded(delivery);
    else if (step.status === 'failed' && step.disableEndpoint)
      await this.endpoints.disable(delivery.webhookId, 'the endpoint answered 410 Gone');
    else await this.endpoints.failed(delivery, attemptedAt);
  }

  /** What the attempt tells of its endpoint (EndpointBreakers). */
  private learn(webhookId: number, result: SendResult): void {
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) this.breakers.succeeded(webhookId);
    else if (result.timedOut) this.breakers.timedOut(webhookId, performance.now());
    else this.breakers.failed(webhookId);
  }

  /** Queues the outcome for the next batch of records; answers what became of it (see WebhookDispatchRepository.record). */
  private record(delivery: ClaimedDelivery, leaseEnds: number, attempt: AttemptRecord): Promise<RecordOutcome> {
    return new Promise((resolve, reject) => {
      this.outcomes.push({ delivery, leaseEnds, attempt, done: { resolve, reject } });
      if (this.outcomes.length >= RECORD_BATCH) this.flushOutcomes();
      else this.recordTimer ??= setTimeout(() => this.flushOutcomes(), RECORD_LINGER_MS);
    });
  }

  private flushOutcomes(): void {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const batch = this.outcomes;
    this.outcomes = [];
    this.deliveries
      .record(batch.map(({ delivery, attempt }) => ({ id: delivery.id, owner: this.owner, epoch: delivery.epoch, attempt })))
      .then(
        (recorded) => batch.forEach(({ done }, index) => done.resolve(recorded[index])),
        // One failing row (a deadlock, a lock wait) must not leave the whole batch unrecorded: each would be sent
        // again once its claim lapsed. Each is recorded on its own instead, again until its claim lapses.
        () => {
          for (const outcome of batch) void this.recordAlone(outcome).then(outcome.done.resolve, outcome.done.reject);
        },
      );
  }

  private async recordAlone({ delivery, leaseEnds, attempt }: Outcome): Promise<RecordOutcome> {
    for (;;) {
      try {
        const [recorded] = await this.deliveries.record([{ id: delivery.id, owner: this.owner, epoch: delivery.epoch, attempt }]);
        return recorded;
      } catch (error) {
        if (performance.now() + RECORD_RETRY_MS >= leaseEnds || this.stopped) throw error;
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  private async purge(): Promise<void> {
    this.purgedAt = Date.now();
    while ((await this.deliveries.purgeFinished(this.settings.retentionDays, PURGE_BATCH)) === PURGE_BATCH && !this.stopped);
    await this.deliveries.purgeOrphans();
  }
}

/** `ids` starting at the `turn`-th (modulo their number): each poll favours another endpoint. */
function inTurn(ids: number[], turn: number): number[] {
  const first = ids.length > 0 ? turn % ids.length : 0;
  return [...ids.slice(first), ...ids.slice(0, first)];
}

/**
 * Up to `free` of the due deliveries, one of each endpoint in turn (each endpoint's oldest due first), the turns
 * starting at the `turn`-th endpoint: the free slots are shared among the endpoints with due deliveries, however
 * long one's backlog, and when there are fewer slots than endpoints, each poll favours another.
 */
export function takeInTurn(due: Array<{ id: number; webhookId: number }>, free: number, turn = 0): number[] {
  const byEndpoint = new Map<number, number[]>();
  for (const { id, webhookId } of due) {
    const queue = byEndpoint.get(webhookId);
    if (queue) queue.push(id);
    else byEndpoint.set(webhookId, [id]);
  }
  const queues = [...byEndpoint.values()];
  const first = queues.length > 0 ? turn % queues.length : 0;
  const turns = [...queues.slice(first), ...queues.slice(0, first)];
  const taken: number[] = [];
  for (let round = 0; taken.length < Math.min(free, due.length); round++)
    for (const queue of turns) if (round < queue.length && taken.length < free) taken.push(queue[round]);
  return taken;
}
