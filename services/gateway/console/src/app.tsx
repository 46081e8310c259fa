// The app: finds the session, sends a person without one to the sign-in page (and back
// where they were going afterwards), and routes the signed-in pages.

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, setCsrfToken, whenUnauthorized } from './api/client.js';
import { SessionContext } from './api/session.js';
import type { Session } from './api/types.js';
import { Nav } from './components/Nav.js';
import { Keys } from './pages/Keys.js';
import { Members } from './pages/Members.js';
import { Monitors } from './pages/Monitors.js';
import { NotFound } from './pages/NotFound.js';
import { Profiles } from './pages/Profiles.js';
import { Run } from './pages/Run.js';
import { Runs } from './pages/Runs.js';
import { Scrape } from './pages/Scrape.js';
import { SessionPage } from './pages/Session.js';
import { Sessions } from './pages/Sessions.js';
import { SignIn } from './pages/SignIn.js';
import { Usage } from './pages/Usage.js';

const SIGN_IN = '/console/sign-in';

export function App() {
  return (
    <LocationProvider scope="/console">
      <Shell />
    </LocationProvider>
  );
}

function Shell() {
  const { url, path, route } = useLocation();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  // Where a person sent to sign in was going.
  const returnTo = useRef('/console/usage');
  const onSignIn = path === SIGN_IN;

  useEffect(() => {
    whenUnauthorized(() => {
      setCsrfToken('');
      setSession(null);
    });
    api<Session>('/console/api/session', { keepOn401: true }).then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setSession(s);
      },
      () => setSession(null),
    );
  }, []);

  useEffect(() => {
    if (session === null && !onSignIn) {
      returnTo.current = url;
      route(SIGN_IN, true);
    } else if (session && onSignIn) {
      route(returnTo.current, true);
    }
  }, [session, onSignIn, url, route]);

  const state = useMemo(() => (session ? { session, setSession } : null), [session]);

  // Signed in on the sign-in page: the effect above is about to leave it; nothing is loaded meanwhile.
  if (session === undefined || (session && onSignIn)) return <p class="loading">Loading…</p>;
  if (!state) {
    return (
      <main id="main" class="sign-in-page">
        <SignIn
          onSignedIn={(s) => {
            setCsrfToken(s.csrfToken);
            setSession(s);
          }}
        />
      </main>
    );
  }
  return (
    <SessionContext.Provider value={state}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Nav />
      <main id="main" tabIndex={-1}>
        <Router key={state.session.workspace.id}>
          <Route path="/console" component={Usage} />
          <Route path="/console/usage" component={Usage} />
          <Route path="/console/keys" component={Keys} />
          <Route path="/console/scrape" component={Scrape} />
          <Route path="/console/sessions" component={Sessions} />
          <Route path="/console/sessions/:id" component={SessionPage} />
          <Route path="/console/runs" component={Runs} />
          <Route path="/console/runs/:id" component={Run} />
          <Route path="/console/monitors" component={Monitors} />
          <Route path="/console/profiles" component={Profiles} />
          <Route path="/console/members" component={Members} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </SessionContext.Provider>
  );
}
