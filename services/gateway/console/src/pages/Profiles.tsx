import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Profile } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { CopyId } from '../components/Copy.js';
import { PageHeading } from '../components/PageHeading.js';
import { Status } from '../components/Status.js';
import { Table } from '../components/Table.js';
import { Time } from '../components/Time.js';
import { formatBytes } from '../lib/format.js';

export function Profiles() {
  const profiles = useLoad((signal) => api<{ profiles: Profile[] }>('/v1/profiles?limit=100', { signal }), []);
  const action = useAction();
  const [doomed, setDoomed] = useState<Profile>();

  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const label = String(new FormData(form).get('name') ?? '').trim();
    action.run(async () => {
      const answer = await api<{ profile: Profile }>('/v1/profiles', { method: 'POST', body: { label } });
      form.reset();
      profiles.reload();
      return `Profile ${answer.profile.label} created.`;
    });
  };

  const remove = async (profile: Profile) => {
    await action.run(async () => {
      await api(`/v1/profiles/${encodeURIComponent(profile.id)}`, { method: 'DELETE' });
      profiles.reload();
      return `Profile ${profile.label} deleted with its stored state.`;
    });
    setDoomed(undefined);
  };

  return (
    <>
      <PageHeading title="Profiles">Profiles</PageHeading>
      <section>
        <h2 id="new-profile">Create a profile</h2>
        <p>
          A profile keeps a browser's logins and site data across sessions, seen from the same exit: connect with{' '}
          <code>?profile=&lt;id&gt;</code>.
        </p>
        <form onSubmit={create} class="stack">
          <label>
            Name
            <input name="name" type="text" required maxLength={200} autocomplete="off" />
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            Create profile
          </button>
        </form>
      </section>
      <Alert error={action.error} />
      <Alert error={profiles.error} retry={profiles.reload} />
      <Status>{action.said}</Status>
      <Table
        caption="Profiles"
        rows={profiles.data?.profiles}
        error={profiles.error}
        rowKey={(p) => p.id}
        empty="No profiles yet: create one above to keep a browser's logins between sessions."
        columns={[
          { header: 'Name', cell: (p) => p.label },
          { header: 'Id', cell: (p) => <CopyId id={p.id} what={`id of ${p.label}`} /> },
          { header: 'Exit', cell: (p) => `${p.exit.id}${p.exit.region ? ` (${p.exit.region})` : ''}` },
          { header: 'Created', cell: (p) => <Time iso={p.createdAt} relative /> },
          { header: 'Last used', cell: (p) => <Time iso={p.lastUsedAt} fallback="Never" relative /> },
          { header: 'Stored', cell: (p) => formatBytes(p.storageBytes), numeric: true },
          { header: 'In use', cell: (p) => (p.inUse ? 'Yes' : 'No') },
          {
            header: 'Actions',
            cell: (p) => (
              <button type="button" class="danger" onClick={() => setDoomed(p)}>
                Delete<span class="visually-hidden"> {p.label}</span>
              </button>
            ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!doomed}
        title={`Delete the profile ${doomed?.label ?? ''}?`}
        confirmLabel="Delete profile"
        onConfirm={() => doomed && remove(doomed)}
        onCancel={() => setDoomed(undefined)}
        busy={action.busy}
      >
        <p>Its cookies and site data are deleted with it: logins kept in it are lost. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
