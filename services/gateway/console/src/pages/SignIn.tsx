import { useState } from 'preact/hooks';
import { type ApiFailure, api } from '../api/client.js';
import type { Session } from '../api/types.js';
import { Alert } from '../components/Alert.js';
import { PageHeading } from '../components/PageHeading.js';
import { PRODUCT } from '../lib/product.js';

/** A refusal in words a person acts on; the API's message is generic. */
function explain(failure: ApiFailure): string | undefined {
  if (failure.code === 'unauthorized') return 'The email or the password is wrong.';
  if (failure.code === 'tenant_scope') return 'This account is not a member of any workspace.';
  if (failure.code === 'concurrency_limit') return 'Too many sign-ins were tried: wait before trying again.';
  return undefined;
}

/** Email and password, as for the OAuth sign-in; a refusal is read out (role alert). */
export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const session = await api<Session>('/console/api/session', {
        method: 'POST',
        body: { email: form.get('email'), password: form.get('password') },
        keepOn401: true,
      });
      onSignedIn(session);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <div class="sign-in">
      <PageHeading title="Sign in">Sign in to {PRODUCT}</PageHeading>
      <form onSubmit={submit} class="stack">
        <label>
          Email
          <input name="email" type="email" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <Alert error={error} explain={explain} />
    </div>
  );
}
