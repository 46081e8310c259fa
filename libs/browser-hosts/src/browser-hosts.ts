// The browser hosts a service places browser sessions on (the gateway for
// GET /connect, the agent service for its runs), as they announce
// themselves (libs/events browserHostsSubject): a new session goes to the host
// with the most room (the next one when it cannot be reached); a reconnect to
// the host that has the session; a host that says it is leaving, or is silent
// for three announcements, is forgotten. Before any host has announced (a
// gateway just started), the configured BROWSER_HOST_ADDR serves. An
// announcement is parsed strictly: anything on the subject that is not one
// is dropped, never half-read.

import { ApiError } from '@wap/errors';
import { browserHostsSubject, type HostAnnouncement, type NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';
import { browser } from '@wap/proto';
import { type Closable, createClient, type ServiceClient } from '@wap/rpc';
import { z } from 'zod';

export type BrowserClient = ServiceClient<(typeof browser.BrowserService)['method']> & Closable;

type Subscription = ReturnType<NatsLink['nc']['subscribe']>;

const count = z.int().min(0).max(1_000_000);
/** What a host says of itself (libs/events `HostAnnouncement`), bounded; fields a newer host adds are dropped. */
const announcement = z.object({
  hostId: z.string().min(1).max(200),
  address: z.string().min(1).max(300),
  capacity: count,
  live: count,
  sessions: z.array(z.string().max(200)).max(100_000),
  everyMs: z.int().min(1).max(3_600_000),
  leaving: z.boolean().optional(),
}) satisfies z.ZodType<HostAnnouncement>;

interface Known extends HostAnnouncement {
  seenAt: number;
  /** The order announcements came in: two within one millisecond still have a last. */
  heard: number;
}

export class BrowserHosts {
  private readonly hosts = new Map<string, Known>();
  private readonly clients = new Map<string, BrowserClient>();
  private subscription: Subscription | undefined;
  private announcements = 0;

  constructor(
    private readonly nats: NatsLink,
    private readonly namespace: string,
    /** The host of BROWSER_HOST_ADDR: used while no host has announced. */
    private readonly fallback: BrowserClient | undefined,
    /** The fleet's SERVICE_TOKEN, sent to every host announced. */
    private readonly token: string,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.subscription = this.nats.nc.subscribe(browserHostsSubject(this.namespace), {
      callback: (err, message) => {
        if (err) return;
        let a: HostAnnouncement;
        try {
          a = announcement.parse(message.json());
        } catch {
          this.log.warn('an announcement of a browser host that is not one; ignored');
          return;
        }
        if (a.leaving) this.hosts.delete(a.hostId);
        else this.hosts.set(a.hostId, { ...a, seenAt: Date.now(), heard: ++this.announcements });
      },
    });
  }

  private alive(): Known[] {
    const now = Date.now();
    for (const [id, host] of this.hosts) if (now - host.seenAt > 3 * host.everyMs) this.hosts.delete(id);
    return [...this.hosts.values()];
  }

  private client(address: string): BrowserClient {
    let client = this.clients.get(address);
    if (!client) {
      client = createClient(browser.BrowserService, address, { defaultTimeoutMs: 30_000, token: this.token });
      this.clients.set(address, client);
    }
    return client;
  }

  /**
   * The hosts with free sessions, the most room first: a new session goes to
   * the first that answers (`placed` moves its count on at once, so concurrent
   * connects spread). None when all are full.
   */
  forNewSession(): { client: BrowserClient; placed(): void }[] {
    const hosts = this.alive();
    if (hosts.length === 0) return this.fallback ? [{ client: this.fallback, placed: () => undefined }] : [];
    return hosts
      .filter((h) => h.capacity - h.live > 0)
      .sort((a, b) => b.capacity - b.live - (a.capacity - a.live))
      .map((h) => ({ client: this.client(h.address), placed: () => void h.live++ }));
  }

  /**
   * The hosts to ask for `sessionId`: the one that announced it, else every
   * host (a session opened a moment ago is in no announcement yet); the
   * fallback while none has announced.
   */
  forSession(sessionId: string): BrowserClient[] {
    const hosts = this.alive();
    if (hosts.length === 0) return this.fallback ? [this.fallback] : [];
    const owner = hosts.find((h) => h.sessions.includes(sessionId));
    return (owner ? [owner] : hosts).map((h) => this.client(h.address));
  }

  /**
   * A host for what any replica answers (profiles, which live in the hosts'
   * shared database): the one heard from last; undefined while none has
   * announced (the caller then uses BROWSER_HOST_ADDR).
   */
  any(): BrowserClient | undefined {
    const newest = this.alive().sort((a, b) => b.heard - a.heard)[0];
    return newest ? this.client(newest.address) : undefined;
  }

  stop(): void {
    this.subscription?.unsubscribe();
    for (const client of this.clients.values()) client.close();
  }
}

/**
 * Opens a session on the host with the most room (a host that cannot be
 * reached answers no_capacity and the next is asked), or with `sessionId` a
 * fresh ticket from the host that has it (not_found when none has).
 */
export async function openOnHosts(
  hosts: BrowserHosts,
  request: Parameters<BrowserClient['openSession']>[0],
): Promise<browser.OpenSessionResponse> {
  if (request.sessionId) {
    for (const host of hosts.forSession(request.sessionId)) {
      try {
        return await host.openSession(request);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'not_found') throw err;
      }
    }
    throw new ApiError('not_found');
  }
  let unreachable: unknown;
  for (const host of hosts.forNewSession()) {
    host.placed();
    try {
      return await host.client.openSession(request);
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'no_capacity') throw err;
      unreachable = err;
    }
  }
  throw unreachable ?? new ApiError('no_capacity', { retryAfterSeconds: 5 });
}
