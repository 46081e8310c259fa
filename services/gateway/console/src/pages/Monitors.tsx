import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Monitor } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyId } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { Secret } from '../components/Secret.js';
import { Status } from '../components/Status.js';
import { Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatInterval } from '../lib/format.js';

function scheduleOf(m: Monitor): string {
  if (!('every' in m.schedule)) return `${m.schedule.cron} (${m.schedule.timezone || 'UTC'})`;
  const words = formatInterval(m.schedule.every);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Why a monitor is not checked now, when it is not. */
const SKIPPED: Record<NonNullable<Monitor['skippedReason']>, string> = {
  credits: 'checks are skipped until credits are available',
  plan: 'paused: the plan keeps fewer monitors; it resumes when there is room',
};

function lastCheckOf(m: Monitor) {
  const skipped = m.skippedReason && <> — {SKIPPED[m.skippedReason]}</>;
  if (!m.lastCheck) return <>Not checked yet{skipped}</>;
  const c = m.lastCheck;
  const what = c.status === 'failed' ? `failed${c.errorCode ? ` (${c.errorCode})` : ''}` : c.status;
  return (
    <>
      <Time iso={c.at} relative />: {what}
      {skipped}
    </>
  );
}

/** The delivery log: its newest entries, each with how its sending went. */
function deliveriesOf(m: Monitor) {
  if (m.deliveries.length === 0) return 'None yet';
  return (
    <ul class="plain">
      {m.deliveries.slice(0, 3).map((d) => (
        <li key={d.at}>
          <Time iso={d.at} relative />: {d.status}
          {d.lastStatus ? `, HTTP ${d.lastStatus}` : ''}
          {d.lastError ? `, ${d.lastError}` : ''} ({d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'})
        </li>
      ))}
      {m.deliveries.length > 3 && <li>and {m.deliveries.length - 3} more</li>}
    </ul>
  );
}

export function Monitors() {
  const monitors = useLoad((signal) => api<{ monitors: Monitor[] }>('/v1/monitors?limit=100', { signal }), []);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [doomed, setDoomed] = useState<Monitor>();

  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    action.run(async () => {
      const answer = await api<{ monitor: Monitor; webhookSecret: string | null }>('/v1/monitors', {
        method: 'POST',
        body: { url: field('url'), schedule: { every: field('every') }, notify: { webhook: field('webhook') } },
      });
      setSecret(answer.webhookSecret);
      form.reset();
      monitors.reload();
      return `Monitor created: ${answer.monitor.url} is checked ${scheduleOf(answer.monitor).toLowerCase()}.`;
    });
  };

  const remove = async (monitor: Monitor) => {
    await action.run(async () => {
      await api(`/v1/monitors/${encodeURIComponent(monitor.id)}`, { method: 'DELETE' });
      monitors.reload();
      return `Monitor of ${monitor.url} deleted.`;
    });
    setDoomed(undefined);
  };

  return (
    <>
      <PageHeading title="Monitors">Monitors</PageHeading>
      <section>
        <h2 id="new-monitor">Watch a page</h2>
        <p>Each check costs 1 credit, and 1 more when the page changed. A change is sent once to your webhook.</p>
        <form onSubmit={create} class="stack">
          <label>
            URL
            <input name="url" type="url" required placeholder="https://example.com/pricing" />
          </label>
          <label>
            Every
            <input name="every" type="text" required defaultValue="1h" aria-describedby="every-help" />
          </label>
          <p id="every-help" class="note">
            An interval such as 15m, 1h or 1d, at least your plan's shortest.
          </p>
          <label>
            Webhook URL
            <input name="webhook" type="url" required placeholder="https://example.com/hooks/monitor" />
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            Create monitor
          </button>
        </form>
        {secret && (
          <Secret
            label="Signing secret"
            value={secret}
            note="Verify each webhook request with it (Standard Webhooks). It is shown this once."
          />
        )}
      </section>
      <Alert error={action.error} />
      <Alert error={monitors.error} retry={monitors.reload} />
      <Status>{action.said}</Status>
      <Table
        caption="Monitors"
        rows={monitors.data?.monitors}
        error={monitors.error}
        rowKey={(m) => m.id}
        empty="No monitors yet: watch a page with the form above."
        columns={[
          { header: 'URL', cell: (m) => <span class="url">{m.url}</span> },
          // The id a monitor's checks are listed by in Usage's recent calls.
          { header: 'Id', cell: (m) => <CopyId id={m.id} what={`id of ${m.url}`} short /> },
          { header: 'Schedule', cell: scheduleOf },
          { header: 'Last check', cell: lastCheckOf },
          { header: 'Next check', cell: (m) => <Time iso={m.nextCheckAt} relative /> },
          { header: 'Deliveries', cell: deliveriesOf },
          {
            header: 'Actions',
            cell: (m) => (
              <button type="button" class="danger" onClick={() => setDoomed(m)}>
                Delete<span class="visually-hidden"> {m.url}</span>
              </button>
            ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!doomed}
        title="Delete this monitor?"
        confirmLabel="Delete monitor"
        onConfirm={() => doomed && remove(doomed)}
        onCancel={() => setDoomed(undefined)}
        busy={action.busy}
      >
        <p>
          <span class="url">{doomed?.url}</span> is no longer checked, and its snapshots and delivery log are discarded.
        </p>
      </ConfirmDialog>
    </>
  );
}
