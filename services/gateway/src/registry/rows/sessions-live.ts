// One session as it changes (docs/sessions.md): Server-Sent Events fed by looking
// at the session-recorder's answer until the session ends. Never billed.
import { z } from 'zod';
import { capability } from '../types.js';
import { sessionObject, sessionParams, toSessionJson } from './session-object.js';

/** How often the live feed looks at the session while it runs. */
export const LIVE_POLL_MS = 1_000;

export const sessionsLiveRow = capability({
  name: 'sessions.live',
  method: 'get',
  path: '/v1/sessions/{id}/live',
  tag: 'Sessions',
  summary: 'One browser session, as it changes',
  description:
    'The `live` variant of `sessions.get`: Server-Sent Events, one `data:` frame with the session at once and another each time its status, pages, recording or usage change (looked at every second), ending after the frame that says `ended`. Another workspace’s session is not_found before the stream starts. Never billed.',
  backend: 'session-recorder',
  bills: [],
  mcpTool: 'service_sessions_live',
  answer: { kind: 'sse' },
  request: { params: sessionParams },
  response: z.object({ session: sessionObject }),
  errors: ['not_found'],
  handler: async ({ principal, upstreams, signal, replays }, { params: p }) => {
    const read = async () => {
      const out = await upstreams.sessions.getSession(
        { workspaceId: principal.workspaceId, sessionId: p.id },
        { signal },
      );
      if (!out.session) throw new Error('session-recorder answered no session');
      return out.session;
    };
    // Read once before the stream: a session that does not exist is a plain 404.
    const first = await read();
    return (async function* () {
      let session = first;
      let said = '';
      for (;;) {
        const json = toSessionJson(session, replays);
        // What changes matters; the link's expiry and the age tick on their own and are not news.
        const news = JSON.stringify({ ...json, replayUrl: !!json.replayUrl, ageSeconds: 0, durationSeconds: 0 });
        if (news !== said) {
          said = news;
          yield { session: json };
        }
        if (json.status === 'ended' || signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, LIVE_POLL_MS));
        if (signal.aborted) return;
        session = await read();
      }
    })();
  },
});
