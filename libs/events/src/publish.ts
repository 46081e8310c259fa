import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import { type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';
import { injectContext } from '@wap/telemetry';

export interface PublishOptions {
  /** De-duplication key (`Nats-Msg-Id`): the same id within the stream's window is stored once. */
  msgId: string;
  /** Extra headers; the active trace context is always added. */
  headers?: Record<string, string>;
}

/** Publishes JSON (or bytes) to a JetStream subject with de-duplication and trace context. */
export class Publisher {
  private readonly js: JetStreamClient;

  constructor(nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  async publish(
    subject: string,
    payload: unknown,
    options: PublishOptions,
  ): Promise<{ seq: number; duplicate: boolean }> {
    return this.publishBytes(subject, new TextEncoder().encode(JSON.stringify(payload)), options);
  }

  /** Publishes bytes as they are (a compressed chunk, say), with the same de-duplication and trace context. */
  async publishBytes(
    subject: string,
    data: Uint8Array,
    options: PublishOptions,
  ): Promise<{ seq: number; duplicate: boolean }> {
    const headers = natsHeaders();
    for (const [key, value] of Object.entries(options.headers ?? {})) headers.set(key, value);
    if (!options.headers || !Object.keys(options.headers).some((k) => k.toLowerCase() === 'traceparent')) {
      injectContext((key, value) => headers.set(key, value));
    }
    const ack = await this.js.publish(subject, data, { msgID: options.msgId, headers });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }
}
