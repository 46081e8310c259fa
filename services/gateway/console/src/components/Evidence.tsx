import { api } from '../api/client.js';
import { useAction } from '../api/use-action.js';
import { Alert } from './Alert.js';
import { Status } from './Status.js';
import { Time } from './Time.js';

interface Verified {
  valid: boolean;
  chunks: number;
  head: string;
  brokenAt: number | null;
  reason: string | null;
}

interface Exported {
  export: { url: string; filename: string; expiresAt: string };
}

/** Export (a signed link to an offline bundle) and Verify (the hash chain), outcomes read out. */
export function Evidence({ sessionId }: { sessionId: string }) {
  const action = useAction();
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;

  const exportBundle = () =>
    action.run(async () => {
      const { export: e } = await api<Exported>(`${path}/export`, { method: 'POST' });
      return (
        <>
          Export ready:{' '}
          <a href={e.url} download={e.filename}>
            download {e.filename}
          </a>{' '}
          (the link works until <Time iso={e.expiresAt} />; the file plays offline).
        </>
      );
    });

  const verify = () =>
    action.run(async () => {
      const v = await api<Verified>(`${path}/verify`, { method: 'POST' });
      return v.valid
        ? `Recording verified: all ${v.chunks} chunks match their hash chain (head ${v.head.slice(0, 16)}…).`
        : `Recording altered: chunk ${v.brokenAt} breaks the hash chain (${v.reason ?? 'no reason given'}).`;
    });

  return (
    <section>
      <h2 id="evidence">Evidence</h2>
      <div class="actions">
        <button type="button" onClick={exportBundle} disabled={action.busy}>
          Export
        </button>
        <button type="button" onClick={verify} disabled={action.busy}>
          Verify
        </button>
      </div>
      <Status>{action.said}</Status>
      <Alert error={action.error} />
    </section>
  );
}
