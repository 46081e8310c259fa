import { useState } from 'preact/hooks';
import { type ApiFailure, api } from '../api/client.js';
import { useSession } from '../api/session.js';
import type { Member } from '../api/types.js';
import { useAction } from '../api/use-action.js';
import { useLoad } from '../api/use-load.js';
import { Alert } from '../components/Alert.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { PageHeading } from '../components/PageHeading.js';
import { Status } from '../components/Status.js';
import { type Column, Table } from '../components/Table.js';
import { Time } from '../components/Time.js';

/** The API's messages are generic; what they mean here. */
function explain(failure: ApiFailure): string | undefined {
  if (failure.code === 'not_found')
    return failure.details?.resource === 'user'
      ? 'No account has this email: the person needs an account first.'
      : 'They are no longer a member of this workspace.';
  if (failure.code === 'tenant_scope') return 'Only owners of the workspace add and remove members.';
  return undefined;
}

export function Members() {
  const { session } = useSession();
  const owner = session.role === 'owner';
  const members = useLoad((signal) => api<{ members: Member[] }>('/console/api/members', { signal }), []);
  const action = useAction();
  const act = (what: () => Promise<string>) =>
    action.run(async () => {
      const said = await what();
      members.reload();
      return said;
    });

  const add = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    act(async () => {
      await api('/console/api/members', { method: 'POST', body: { email, role: data.get('role') } });
      form.reset();
      return `${email} is a ${data.get('role')} of ${session.workspace.name}.`;
    });
  };

  // Removing someone signs them out at once: asked once more, as deleting a key is.
  const [doomed, setDoomed] = useState<Member>();
  const remove = async (m: Member) => {
    await act(async () => {
      await api(`/console/api/members/${encodeURIComponent(m.userId)}`, { method: 'DELETE' });
      return `${m.email} was removed: their sign-ins to this workspace ended.`;
    });
    setDoomed(undefined);
  };

  const columns: Column<Member>[] = [
    { header: 'Email', cell: (m) => m.email },
    { header: 'Role', cell: (m) => (m.role === 'owner' ? 'Owner' : 'Member') },
    { header: 'Added', cell: (m) => <Time iso={m.addedAt} relative /> },
  ];
  if (owner)
    columns.push({
      header: 'Actions',
      cell: (m) =>
        m.userId === session.user.id ? (
          'You'
        ) : (
          <button type="button" class="danger" onClick={() => setDoomed(m)} disabled={action.busy}>
            Remove<span class="visually-hidden"> {m.email}</span>
          </button>
        ),
    });

  return (
    <>
      <PageHeading title="Members">Members</PageHeading>
      {owner ? (
        <section>
          <h2 id="add-member">Add a member</h2>
          <p>The person needs an account already. Adding a member again sets their role.</p>
          <form onSubmit={add} class="filters">
            <label>
              Email
              <input name="email" type="email" required autocomplete="off" />
            </label>
            <label>
              Role
              <select name="role" defaultValue="member">
                <option value="member">Member</option>
                <option value="owner">Owner</option>
              </select>
            </label>
            <button type="submit" class="primary" disabled={action.busy}>
              Add member
            </button>
          </form>
        </section>
      ) : (
        <p>Only owners of the workspace add and remove members.</p>
      )}
      <Alert error={action.error} explain={explain} />
      <Alert error={members.error} retry={members.reload} />
      <Status>{action.said}</Status>
      <Table
        caption="Members"
        rows={members.data?.members}
        error={members.error}
        rowKey={(m) => m.userId}
        empty="No members."
        columns={columns}
      />
      <ConfirmDialog
        open={!!doomed}
        title={`Remove ${doomed?.email ?? ''} from ${session.workspace.name}?`}
        confirmLabel="Remove member"
        onConfirm={() => doomed && remove(doomed)}
        onCancel={() => setDoomed(undefined)}
        busy={action.busy}
      >
        <p>Their sign-ins and tokens for this workspace stop working at once. You can add them again later.</p>
      </ConfirmDialog>
    </>
  );
}
