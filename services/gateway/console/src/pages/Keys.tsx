import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { ApiKey } from '../api/types.js';
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

const SURFACE_NAMES = { rest: 'REST API', mcp: 'MCP server' } as const;

export function Keys() {
  const keys = useLoad((signal) => api<{ keys: ApiKey[] }>('/console/api/keys', { signal }), []);
  const action = useAction();
  const [created, setCreated] = useState<{ key: ApiKey; credential: string }>();
  const [doomed, setDoomed] = useState<ApiKey>();

  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    action.run(async () => {
      const answer = await api<{ key: ApiKey; credential: string }>('/console/api/keys', {
        method: 'POST',
        body: { name: String(data.get('name') ?? '').trim(), surfaces: data.getAll('surfaces') },
      });
      setCreated(answer);
      form.reset();
      keys.reload();
      return `Key ${answer.key.name} created.`;
    });
  };

  const revoke = async (key: ApiKey) => {
    await action.run(async () => {
      await api(`/console/api/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      keys.reload();
      return `Key ${key.name} deleted: it no longer works.`;
    });
    setDoomed(undefined);
  };

  return (
    <>
      <PageHeading title="API keys">API keys</PageHeading>
      <section>
        <h2 id="new-key">Create a key</h2>
        <form onSubmit={create} class="stack">
          <label>
            Name
            <input name="name" type="text" required maxLength={100} autocomplete="off" />
          </label>
          <fieldset>
            <legend>Works on</legend>
            <label class="check">
              <input type="checkbox" name="surfaces" value="rest" defaultChecked />
              REST API
            </label>
            <label class="check">
              <input type="checkbox" name="surfaces" value="mcp" defaultChecked />
              MCP server
            </label>
          </fieldset>
          <button type="submit" class="primary" disabled={action.busy}>
            Create key
          </button>
        </form>
        {created && (
          <Secret
            label="New key"
            value={created.credential}
            note="This is the only time the key is shown: copy it now and keep it somewhere safe."
          />
        )}
      </section>
      <Alert error={action.error} />
      <Alert error={keys.error} retry={keys.reload} />
      <Status>{action.said}</Status>
      <Table
        caption="API keys"
        rows={keys.data?.keys}
        error={keys.error}
        rowKey={(k) => k.id}
        empty="No keys yet: create one above to call the API or use the MCP server."
        columns={[
          { header: 'Name', cell: (k) => k.name },
          { header: 'Id', cell: (k) => <CopyId id={k.id} what={`id of ${k.name}`} /> },
          { header: 'Works on', cell: (k) => k.surfaces.map((s) => SURFACE_NAMES[s]).join(', ') },
          { header: 'Created', cell: (k) => <Time iso={k.createdAt} relative /> },
          { header: 'Last used', cell: (k) => <Time iso={k.lastUsedAt} fallback="Never" relative /> },
          {
            header: 'State',
            cell: (k) =>
              k.revokedAt ? (
                <>
                  Deleted <Time iso={k.revokedAt} relative />
                </>
              ) : (
                <button type="button" class="danger" onClick={() => setDoomed(k)}>
                  Delete<span class="visually-hidden"> {k.name}</span>
                </button>
              ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!doomed}
        title={`Delete the key ${doomed?.name ?? ''}?`}
        confirmLabel="Delete key"
        onConfirm={() => doomed && revoke(doomed)}
        onCancel={() => setDoomed(undefined)}
        busy={action.busy}
      >
        <p>Every client using it is refused from now on, on every gateway. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
