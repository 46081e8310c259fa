import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Run } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { Alert } from './Alert.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { Status } from './Status.js';

interface ControlAnswer {
  run: Run;
  controlUrl: string | null;
  controlExpiresAt: string | null;
}

/**
 * Taking the wheel (the run pauses; its browser is driven in the framed control page), handing
 * it back, and cancelling the run.
 */
export function RunControl({ run, onChange }: { run: Run; onChange: (run: Run) => void }) {
  const [controlUrl, setControlUrl] = useState<string | null>(null);
  // Cancelling cannot be taken back: asked once more, as deleting a key is.
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const path = `/v1/agent/${encodeURIComponent(run.id)}`;
  const settled = run.status === 'settled';

  const take = () =>
    action.run(async () => {
      const a = await api<ControlAnswer>(`${path}/control`, { method: 'POST', body: { action: 'take' } });
      setControlUrl(a.controlUrl);
      onChange(a.run);
      return 'You have the wheel: the run is paused while you drive its browser below.';
    });

  const handBack = () =>
    action.run(async () => {
      const a = await api<ControlAnswer>(`${path}/control`, { method: 'POST', body: { action: 'release' } });
      setControlUrl(null);
      onChange(a.run);
      return 'Handed back: the run goes on from the page you left.';
    });

  const cancel = async () => {
    await action.run(async () => {
      const a = await api<{ run: Run }>(`${path}/cancel`, { method: 'POST' });
      setControlUrl(null);
      onChange(a.run);
      return 'The run is cancelled.';
    });
    setConfirming(false);
  };

  const driving = controlUrl !== null || run.pausedFor === 'control';
  // A settled run has nothing left to drive; what ended it (a cancel from here) is still said.
  if (settled) return <Status>{action.said}</Status>;
  return (
    <section>
      <h2 id="control">Control</h2>
      <div class="actions">
        <button type="button" onClick={take} disabled={action.busy || !run.sessionId}>
          Take control
        </button>
        <button type="button" onClick={handBack} disabled={action.busy || !driving}>
          Hand back
        </button>
        <button type="button" class="danger" onClick={() => setConfirming(true)} disabled={action.busy}>
          Cancel run
        </button>
      </div>
      <Status>{action.said}</Status>
      <Alert error={action.error} />
      {controlUrl && <iframe class="screen control" title="Control" src={controlUrl} />}
      <ConfirmDialog
        open={confirming}
        title="Cancel this run?"
        confirmLabel="Cancel run"
        dismissLabel="Keep it running"
        onConfirm={cancel}
        onCancel={() => setConfirming(false)}
        busy={action.busy}
      >
        <p>It stops at once and cannot be resumed. What it did so far stays billed.</p>
      </ConfirmDialog>
    </section>
  );
}
