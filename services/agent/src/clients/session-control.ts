// What the agent tells a browser host about a run's session a person drove:
// the wheel is back, so the host's guard on the person's navigations ends at
// once instead of lapsing (docs/sessions.md, "Human control").
import { type NatsLink, sessionStreamNames } from '@wap/events';

/** Asks the session's host, over its live-input subject, to end the person's control now. */
export const releaseControlOver =
  (nats: NatsLink, namespace: string) =>
  async (sessionId: string): Promise<void> => {
    await nats.nc.request(sessionStreamNames(namespace).liveInput(sessionId), JSON.stringify({ release: true }), {
      timeout: 5_000,
    });
  };
