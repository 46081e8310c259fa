// The signed-in person and workspace, shared by every page.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './types.js';

export interface SessionState {
  session: Session;
  /** After a workspace switch or a sign-out (null). */
  setSession: (session: Session | null) => void;
}

export const SessionContext = createContext<SessionState | null>(null);

/** The session of a page that is only shown signed in. */
export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside a signed-in page');
  return state;
}
