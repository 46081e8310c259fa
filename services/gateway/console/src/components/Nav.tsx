import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, setCsrfToken } from '../api/client.js';
import { useSession } from '../api/session.js';
import type { Session } from '../api/types.js';
import { PRODUCT } from '../lib/product.js';
import { Alert } from './Alert.js';

const LINKS = [
  { href: '/console/usage', label: 'Usage' },
  { href: '/console/keys', label: 'Keys' },
  { href: '/console/scrape', label: 'Scrape' },
  { href: '/console/sessions', label: 'Sessions' },
  { href: '/console/runs', label: 'Agent runs' },
  { href: '/console/monitors', label: 'Monitors' },
  { href: '/console/profiles', label: 'Profiles' },
  { href: '/console/members', label: 'Members' },
];

/** The section a path belongs to: /console/sessions/abc is under Sessions; /console/ is Usage. */
function sectionOf(path: string): string {
  const first = path.replace(/^\/console\/?/, '').split('/')[0] || 'usage';
  return `/console/${first}`;
}

/** The top navigation: the workspace (a switch when there are several), signing out, and the pages. */
export function Nav() {
  const { path, route } = useLocation();
  const { session, setSession } = useSession();
  const [error, setError] = useState<unknown>();
  const current = sectionOf(path);

  const signOut = async () => {
    try {
      await api('/console/api/session', { method: 'DELETE', keepOn401: true });
    } catch (err) {
      // A session that had ended already is signed out all the same.
      if (!(err instanceof Error && 'status' in err && err.status === 401)) return setError(err);
    }
    setCsrfToken('');
    setSession(null);
    route('/console/sign-in');
  };

  const switchTo = async (workspaceId: string) => {
    try {
      const next = await api<Session>('/console/api/session/workspace', { method: 'PUT', body: { workspaceId } });
      setCsrfToken(next.csrfToken);
      setSession(next);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <header class="top">
      <nav aria-label="Console">
        <a class="brand" href="/console/usage">
          {PRODUCT}
        </a>
        {session.workspaces.length > 1 ? (
          <label class="inline">
            <span class="visually-hidden">Workspace</span>
            <select value={session.workspace.id} onChange={(e) => switchTo(e.currentTarget.value)}>
              {session.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span class="workspace">{session.workspace.name}</span>
        )}
        <div class="who">
          <span class="email">{session.user.email}</span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
        {/* The pages on a row of their own under the workspace and the person, at any width. */}
        <ul class="links">
          {LINKS.map((link) => (
            <li key={link.href}>
              <a href={link.href} aria-current={current === link.href ? 'page' : undefined}>
                {link.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Alert error={error} />
    </header>
  );
}
