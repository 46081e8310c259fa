// The frontier: a JetStream work queue every crawl worker of a deployment
// shares, one message per URL to fetch, named under the deployment's namespace
// (docs/crawl.md).
import type { ConsumerSpec, Publisher, StreamSpec } from '@wap/events';
import type { QueuedUrl } from '../store/urls.js';

/** The stream, its subjects and the workers' durable consumer, under a namespace. */
export function frontierNames(namespace = '') {
  return {
    stream: `${namespace.toUpperCase()}CRAWL_FRONTIER`,
    subjects: `${namespace}crawl.frontier.>`,
    subject: (crawlId: string) => `${namespace}crawl.frontier.${crawlId}`,
    consumer: 'crawl-workers',
  };
}

/** What the service declares before it starts: the work queue, kept a day at most, and its consumer. */
export function frontierStreams(config: { NATS_NAMESPACE: string; CRAWL_ACK_WAIT: number }) {
  const names = frontierNames(config.NATS_NAMESPACE);
  const streams: StreamSpec[] = [
    { name: names.stream, subjects: [names.subjects], retention: 'workqueue', maxAgeMs: 24 * 3_600_000 },
  ];
  // Never dead-lettered by JetStream: politeness waits are redeliveries too; crawl_urls.attempts bounds a URL's tries.
  const consumers: ConsumerSpec[] = [
    { stream: names.stream, name: names.consumer, ackWaitMs: config.CRAWL_ACK_WAIT, maxDeliver: -1 },
  ];
  return { streams, consumers };
}

export class Frontier {
  readonly stream: string;
  readonly consumer: string;
  private readonly subject: (crawlId: string) => string;

  constructor(
    private readonly publisher: Publisher,
    namespace = '',
  ) {
    const names = frontierNames(namespace);
    this.stream = names.stream;
    this.consumer = names.consumer;
    this.subject = names.subject;
  }

  /** Queues URLs of a crawl; `suffix` forces a new message past the de-duplication window. */
  async publish(crawlId: string, urls: readonly QueuedUrl[], suffix = ''): Promise<void> {
    await Promise.all(
      urls.map((u) =>
        this.publisher.publish(
          this.subject(crawlId),
          { crawlId, urlKey: u.key, url: u.url, host: u.host } satisfies FrontierMessage,
          { msgId: `${crawlId}:${u.key}${suffix}` },
        ),
      ),
    );
  }
}

/** One URL to fetch: its key, and its URL and host so robots.txt is judged before the take. */
export interface FrontierMessage {
  crawlId: string;
  urlKey: string;
  url: string;
  host: string;
}
