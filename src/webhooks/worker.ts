// The delivery worker that runs inside every `shortlink serve` process. It polls the outbox for
// due deliveries, claims them with a lease (several processes on one Postgres never make the
// same attempt twice), makes each attempt (delivery.ts) with a bounded number in flight, and
// records the outcome by the rules of schedule.ts.
//
// Durability: a delivery is a row, so a pending retry survives any crash. An attempt in flight
// holds a lease; request_sent is written before the request is. When a lease runs out (the
// process died), any process settles the attempt from the record (lease-sweep.ts): Variant A
// with the request written becomes UNKNOWN (the endpoint may have acted); anything else is a
// failed attempt on the retry schedule.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { Db, Engine } from '../db/knex.ts';
import * as outbox from '../db/repos/webhook-deliveries.ts';
import type { ClaimedDelivery } from '../db/repos/webhook-deliveries.ts';
import { sweepOutbox } from './lease-sweep.ts';
import { WriteBatch } from './write-batch.ts';
import { attemptDelivery, closeIdleConnections, type AttemptReport } from './delivery.ts';
import {
  attemptTimeoutMs,
  deliveryOutcome,
  endpointSignal,
  leaseMs,
  type Variant,
} from '../domain/webhook-delivery.ts';
import { openSecret } from './secrets.ts';
import { composeVariantA, composeVariantB } from './signing.ts';
import { keptRequest } from './delivery-log.ts';
import type { Lookup } from './ssrf.ts';

export interface WebhookWorkerOptions {
  knex: Db;
  engine: Engine;
  log: Logger;
  masterKey: Buffer;
  /** WEBHOOK_RETRY_SCALE. */
  retryScale: number;
  /** WEBHOOK_TIMEOUT_MS: overrides both variants' timeouts. */
  timeoutMs?: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=1. */
  allowPrivateNetworks: boolean;
  /** Certificates trusted besides the system's (tests: the receiver's self-signed one). */
  extraCa?: string[];
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How often the outbox is polled when nothing is known to be due. */
  pollMs?: number;
  lookup?: Lookup;
  /**
   * The time the worker goes by (claims, leases, attempt records, endpoint health). Tests move
   * it ahead to cover days without waiting; timers still count real milliseconds.
   */
  clock?: () => number;
}

const runningWorkers = new Set<WebhookWorker>();

/**
 * Tells the workers of this process that deliveries were just committed to the outbox, so they
 * look now instead of at their next poll (up to DEFAULT_POLL_MS later). Optional: call it after
 * the transaction that wrote them has committed.
 */
export function deliveriesQueued(): void {
  for (const worker of runningWorkers) worker.nudge();
}

export const DEFAULT_CONCURRENCY = 64;
export const DEFAULT_POLL_MS = 100;
/** Expired leases and deliveries of deleted subscriptions are looked for this often. */
const SWEEP_MS = 1_000;
/** Room left in the lease, after the answer's timeout, for the final write. */
const LEASE_SLACK_MS = 2_000;
/** With a backlog, refill once this many slots are free (one claim query per batch, not per delivery). */
const REFILL_BATCH = 8;

export class WebhookWorker {
  /** This process's name on the leases it holds. */
  readonly owner = `${os.hostname().slice(0, 32)}:${process.pid}:${randomBytes(6).toString('hex')}`;
  /** Attempts this process has made (each counted once, whatever its outcome). */
  attemptsMade = 0;
  /** Attempts this process settled, by `${variant} ${status after it}`, for /metrics. */
  readonly settled = new Map<string, number>();
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly inflight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly secrets = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  /** When retries this process scheduled fall due. */
  private wakeups: number[] = [];
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private running = false;
  private backlog = false;
  private lastSweep = 0;
  private readonly sentMarks = new WriteBatch<outbox.AttemptRef, boolean>(async (refs) => {
    const ok = await outbox.markRequestsSent(this.o.knex, this.owner, refs, this.now());
    return refs.map((r) => ok.has(r.id));
  });
  private readonly settlements = new WriteBatch<outbox.Settlement, boolean>(async (items) => {
    const { lost, disabled } = await outbox.settleAttempts(this.o.knex, this.owner, items, this.o.engine);
    if (disabled.length)
      this.o.log.warn(
        { subscriptions: disabled },
        'webhook subscriptions disabled: their deliveries all failed for 5 days',
      );
    return items.map((s) => !lost.has(s.id));
  });
  private readonly now: () => number;

  constructor(private readonly o: WebhookWorkerOptions) {
    this.concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
    this.pollMs = o.pollMs ?? DEFAULT_POLL_MS;
    this.now = o.clock ?? Date.now;
  }

  start(): void {
    this.running = true;
    runningWorkers.add(this);
    this.arm(Date.now());
  }

  /** Looks at the outbox now. */
  nudge(): void {
    this.arm(Date.now());
  }

  /**
   * Stops claiming. Attempts that have not written their request yet are handed back (PENDING,
   * not counted); attempts already sent are waited for, so none is left to end as UNKNOWN.
   */
  async stop(): Promise<void> {
    this.running = false;
    runningWorkers.delete(this);
    clearTimeout(this.timer);
    await this.ticking;
    for (const f of this.inflight.values()) f.abort.abort();
    await Promise.allSettled([...this.inflight.values()].map((f) => f.done));
    closeIdleConnections();
  }

  /** Deliveries being attempted by this process now. */
  get inFlight(): number {
    return this.inflight.size;
  }

  private timeoutOf(variant: Variant): number {
    return attemptTimeoutMs(variant, this.o.timeoutMs);
  }

  /** Makes the worker look at the outbox in `ms` (a retry this process scheduled falls due then). */
  wakeIn(ms: number): void {
    this.wakeups.push(Date.now() + Math.max(0, ms));
    this.arm(Infinity);
  }

  /** Sets the one timer to the earliest of `at` and the known wake-ups. */
  private arm(at: number): void {
    if (!this.running) return;
    for (const t of this.wakeups) if (t < at) at = t;
    if (at === Infinity || (this.timer && this.timerAt <= at)) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        const now = Date.now();
        // The wake-ups that are due are served by this tick; later ones stay armed.
        this.wakeups = this.wakeups.filter((t) => t > now);
        void this.tick();
      },
      Math.max(0, at - Date.now()),
    );
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.poll().catch((err) => this.o.log.warn({ err }, 'webhook outbox poll failed'));
    await this.ticking;
    this.ticking = undefined;
    const free = this.concurrency - this.inflight.size;
    if (this.tickAgain || (this.backlog && free > 0)) {
      this.tickAgain = false;
      this.arm(Date.now());
    } else {
      this.arm(Date.now() + this.pollMs);
    }
  }

  private async poll(): Promise<void> {
    if (!this.running) return;
    const { knex, engine } = this.o;
    const now = this.now();
    if (now - this.lastSweep >= SWEEP_MS) {
      this.lastSweep = now;
      await sweepOutbox(this.o, now, this.now, (ms) => this.wakeIn(ms));
    }
    const free = this.concurrency - this.inflight.size;
    if (free <= 0) {
      this.backlog = true;
      return;
    }
    const claimed = await outbox.claimDue(knex, engine, {
      owner: this.owner,
      now: this.now(),
      limit: free,
      leaseMs: { A: leaseMs(this.timeoutOf('A')), B: leaseMs(this.timeoutOf('B')) },
    });
    this.backlog = claimed.length === free;
    for (const c of claimed) this.launch(c);
  }

  private launch(c: ClaimedDelivery): void {
    this.attemptsMade++;
    const abort = new AbortController();
    const done = this.deliver(c, abort.signal)
      .catch((err) =>
        this.o.log.error({ err, delivery: c.id }, 'webhook attempt could not be recorded; its lease will settle it'),
      )
      .finally(() => {
        this.inflight.delete(c.id);
        const free = this.concurrency - this.inflight.size;
        if (this.backlog && (free >= REFILL_BATCH || this.inflight.size === 0)) this.arm(Date.now());
      });
    this.inflight.set(c.id, { abort, done });
  }

  private secretOf(sealed: string): string {
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = openSecret(this.o.masterKey, sealed);
      if (this.secrets.size >= 10_000) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }

  private async deliver(c: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const { knex, log } = this.o;
    const timeoutMs = this.timeoutOf(c.variant);
    const ref = { id: c.id, owner: this.owner, attempt: c.attempt };
    let report: AttemptReport;
    let final: ReturnType<typeof deliveryOutcome> | undefined;
    // Whether the attempt says anything about the endpoint's health: not when the subscription
    // went away or this process could not open the secret (nothing was sent for its own reasons).
    let aboutEndpoint = false;
    if (!c.subscription) {
      report = {
        result: { kind: 'not_sent', error: 'the subscription was deleted or disabled; nothing was sent' },
        sent: false,
      };
      final = { status: 'FAILED', attemptOutcome: 'failed' };
    } else {
      const subscription = c.subscription;
      let secret: string | undefined;
      try {
        secret = this.secretOf(subscription.secretEncrypted);
      } catch (err) {
        log.error(
          { err, delivery: c.id },
          'cannot open the webhook signing secret (is MASTER_KEY the one it was sealed with?)',
        );
      }
      aboutEndpoint = secret !== undefined;
      report =
        secret === undefined
          ? {
              result: {
                kind: 'not_sent',
                error: 'the signing secret could not be opened with this MASTER_KEY; nothing was sent',
              },
              sent: false,
            }
          : await attemptDelivery({
              url: subscription.url,
              timeoutMs,
              policy: { allowPrivateNetworks: this.o.allowPrivateNetworks },
              extraCa: this.o.extraCa,
              lookup: this.o.lookup,
              signal,
              beforeSend: async () => {
                // Sending is allowed only while the lease outlasts the answer's timeout.
                if (this.now() + timeoutMs + LEASE_SLACK_MS > c.leaseUntil) return false;
                return this.sentMarks.add(ref);
              },
              compose: () =>
                c.variant === 'A' ? composeVariantA(c, secret!, this.now()) : composeVariantB(c, secret!),
            });
      if (report.abandoned && signal.aborted) {
        await outbox.releaseUnsent(knex, ref, this.now());
        return;
      }
    }
    const decision = final ?? deliveryOutcome(c.variant, c.attemptInRound, report.result, this.o.retryScale);
    if (report.result.kind === 'refused' && decision.status === 'FAILED' && c.variant === 'A') {
      report.result = {
        ...report.result,
        error: `${report.result.error}; not retried: waiting cannot make the target acceptable`,
      };
    }
    const recorded = await this.settlements.add({
      ...ref,
      decision,
      result: report.result,
      startedAt: c.startedAt,
      requestSent: report.sent,
      request: keptRequest(c.variant, report.request),
      response: report.response,
      endpoint: aboutEndpoint ? { subscriptionId: c.subscriptionId, signal: endpointSignal(report.result) } : undefined,
      now: this.now(),
    });
    if (!recorded) {
      log.warn(
        { delivery: c.id, attempt: c.attempt },
        'webhook attempt finished after its lease was settled elsewhere; outcome not recorded',
      );
      return;
    }
    const counted = `${c.variant} ${decision.status}`;
    this.settled.set(counted, (this.settled.get(counted) ?? 0) + 1);
    // A timer may fire a millisecond before the wall clock reaches the due time.
    if (decision.status === 'PENDING') this.wakeIn(decision.retryInMs + 2);
    const entry = {
      delivery: c.id,
      variant: c.variant,
      attempt: c.attempt,
      outcome: decision.attemptOutcome,
      status: decision.status,
      result: report.result,
    };
    if (decision.status === 'FAILED' || decision.status === 'UNKNOWN') log.info(entry, 'webhook delivery settled');
    else log.debug(entry, 'webhook attempt');
  }
}
