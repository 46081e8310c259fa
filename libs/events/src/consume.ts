import { type ConsumerMessages, type JsMsg, jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { context } from '@opentelemetry/api';
import type { Logger } from '@wap/log';
import { extractContext } from '@wap/telemetry';

export interface Delivery<T> {
  subject: string;
  data: T;
  /** The publisher's `Nats-Msg-Id`, the key for idempotent handling. */
  msgId: string;
  /** 1 on first delivery; more when a worker died or a handler failed. */
  deliveryCount: number;
  /** Keeps the message from being redelivered while a long handler runs. */
  working(): void;
}

/** A handler's answer for work that is not due yet: offer it again after this delay. */
export interface Retry {
  retryInMs: number;
}

export interface ConsumeSettings<T> {
  stream: string;
  consumer: string;
  /** Messages handled at once by this process. */
  concurrency?: number;
  /** Wait before a failed message is offered again; grows with each try. */
  retryDelayMs?: number;
  /**
   * Reads a message's body and headers into `T` (default: the body as JSON).
   * A message it cannot read is terminated: retrying cannot fix it.
   */
  decode?(data: Uint8Array, header: (name: string) => string | undefined): T;
  log: Logger;
  /**
   * Handles one message. Resolving acks it; throwing offers it again with a
   * growing delay; resolving `{ retryInMs }` offers it again after that delay
   * without counting as a failure (work that is not due yet).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most handlers return nothing; only a few say "not yet"
  handle(delivery: Delivery<T>): Promise<Retry | undefined | void>;
}

/**
 * How long each pull waits on the server. The client expects a heartbeat every half of it and
 * pulls again after two are missed: when the consumer's leader dies (one NATS server of a
 * cluster lost), that is how long consuming stops beyond the election. The library's 30 s made
 * a session's recording wait 37 s after a leader's loss (e2e/src/failover.test.ts); an idle
 * consumer pulls once per this instead of once per 30 s.
 */
const PULL_EXPIRES_MS = 5_000;

/**
 * Runs a durable pull consumer. A message is acked only after its handler
 * succeeds; a failure is offered again later, so handlers must be idempotent
 * (see `Inbox`): a message can arrive twice.
 */
export class Consumer<T> {
  private messages: ConsumerMessages | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly settings: ConsumeSettings<T>,
  ) {}

  async start(): Promise<void> {
    const js = jetstream(this.nc);
    const consumer = await js.consumers.get(this.settings.stream, this.settings.consumer);
    const concurrency = this.settings.concurrency ?? 4;
    this.messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
    void this.loop(this.messages, concurrency);
  }

  private async loop(messages: ConsumerMessages, concurrency: number) {
    for await (const msg of messages) {
      if (this.stopped) {
        msg.nak();
        continue;
      }
      const task = this.handleOne(msg).finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
      if (this.inFlight.size >= concurrency) await Promise.race(this.inFlight);
    }
  }

  private async handleOne(msg: JsMsg): Promise<void> {
    const ctx = extractContext((key) => msg.headers?.get(key) || undefined);
    await context.with(ctx, async () => {
      let data: T;
      try {
        const { decode } = this.settings;
        data = decode ? decode(msg.data, (name) => msg.headers?.get(name) || undefined) : msg.json<T>();
      } catch {
        // Retrying cannot fix a body that cannot be read: drop it loudly. No reason with the
        // term: nats-server 2.9 (Debian's) ignores `+TERM <reason>` and redelivers the message.
        this.settings.log.error({ subject: msg.subject, seq: msg.seq }, 'event cannot be read; terminated');
        msg.term();
        return;
      }
      const delivery: Delivery<T> = {
        subject: msg.subject,
        data,
        msgId: msg.headers?.get('Nats-Msg-Id') || `${this.settings.stream}:${msg.seq}`,
        deliveryCount: msg.info.deliveryCount,
        working: () => msg.working(),
      };
      try {
        const answer = await this.settings.handle(delivery);
        if (answer) msg.nak(Math.max(1, Math.round(answer.retryInMs)));
        else msg.ack();
      } catch (err) {
        const delay = (this.settings.retryDelayMs ?? 1_000) * Math.min(2 ** (delivery.deliveryCount - 1), 30);
        this.settings.log.warn(
          { err, subject: msg.subject, msgId: delivery.msgId, delivery: delivery.deliveryCount },
          'event handler failed; will retry',
        );
        msg.nak(delay);
      }
    });
  }

  /** Stops taking messages and waits for the ones in hand. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await Promise.allSettled(this.inFlight);
  }
}
