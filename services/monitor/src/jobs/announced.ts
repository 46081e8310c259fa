// The ledger's announcements of whose credits changed (`ledger.credits.changed`,
// decision 0008: a grant, a plan moved, any settle), as a job of the monitor
// service hears them: one replica hears each (a NATS queue group of the job's
// own), and the workspaces announced within `gatherMs` are handed over in one
// batch. Core NATS: an announcement lost is not heard again, so what depends
// on one has a slower way to the same end.
import type { NatsLink } from '@wap/events';
import type { Logger } from '@wap/log';

export interface Announcements {
  nc: NatsLink['nc'];
  subject: string;
}

export interface AnnouncedOptions {
  /** The queue group: each job that listens has its own, so each hears every announcement once. */
  queue: string;
  gatherMs: number;
  log: Logger;
  /** What is lost when the subscription fails, for the log. */
  otherwise: string;
}

export function announcedWorkspaces(
  announcements: Announcements | undefined,
  options: AnnouncedOptions,
  handle: (workspaceIds: string[]) => Promise<void>,
) {
  const { log } = options;
  const announced = new Set<string>();
  let subscription: ReturnType<NatsLink['nc']['subscribe']> | undefined;
  let gathering: NodeJS.Timeout | undefined;
  let handling: Promise<void> = Promise.resolve();
  let stopped = false;

  const flush = () => {
    gathering = undefined;
    const ids = [...announced];
    announced.clear();
    handling = handling
      .then(() => handle(ids))
      .catch((err: unknown) => log.warn({ err, queue: options.queue }, 'announced workspaces not looked at'));
  };
  /** Workspaces to hand over with the next batch, announced or not (a change made here). */
  const add = (ids: Iterable<string>) => {
    if (stopped) return;
    for (const id of ids) announced.add(id);
    if (announced.size > 0) gathering ??= setTimeout(flush, options.gatherMs);
  };

  return {
    add,
    start: () => {
      if (!announcements) return;
      subscription = announcements.nc.subscribe(announcements.subject, {
        queue: options.queue,
        callback: (err, message) => {
          if (err) return log.warn({ err }, `credit announcements: subscription failed; ${options.otherwise}`);
          try {
            const ids = message.json<unknown>();
            if (Array.isArray(ids)) add(ids.filter((id): id is string => typeof id === 'string'));
          } catch {
            return;
          }
        },
      });
    },
    /** Stops listening and waits for the batch in hand; what is still gathering is dropped. */
    stop: async () => {
      stopped = true;
      subscription?.unsubscribe();
      clearTimeout(gathering);
      gathering = undefined;
      await handling;
    },
  };
}
