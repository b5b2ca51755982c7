// The app's shell: who is signed in, the navigation, and the page the location's hash
// names (#/events, #/flags, …), so every page has an address and Back works.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { html } from './ui.js';
import { SignIn } from './signin.js';
import { EventsPage } from './events.js';
import { FlagsPage } from './flags.js';
import { PersonsPage } from './persons.js';
import { StatusPage } from './status.js';
import { InsightsPage } from './insights.js';
import { DashboardsPage } from './dashboards.js';
import { FunctionsPage } from './functions.js';

const PAGES = [
  { path: 'events', title: 'Live events', page: EventsPage },
  { path: 'flags', title: 'Feature flags', page: FlagsPage },
  { path: 'persons', title: 'Persons', page: PersonsPage },
  { path: 'insights', title: 'Insights', page: InsightsPage },
  { path: 'dashboards', title: 'Dashboards', page: DashboardsPage },
  { path: 'functions', title: 'Hog functions', page: FunctionsPage },
  { path: 'status', title: 'Status', page: StatusPage },
];

function useHash() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const [user, setUser] = useState(undefined);
  const hash = useHash();
  useEffect(() => { api('/api/users/@me').then(setUser, () => setUser(null)); }, []);
  if (user === undefined) return html`<p>Loading…</p>`;
  if (user === null) return html`<${SignIn} onSignedIn=${setUser} />`;
  const [, first = 'events', ...rest] = hash.replace(/^#/, '').split('/');
  const current = PAGES.find((p) => p.path === first) ?? PAGES[0];
  document.title = `${current.title} · hedgerow`;
  const signOut = async () => { await api('/api/logout', { method: 'POST' }).catch(() => {}); setUser(null); };
  return html`
    <header>
      <span class="brand">hedgerow</span>
      <nav aria-label="Main">
        <ul>${PAGES.map((p) => html`<li><a href="#/${p.path}" aria-current=${p === current ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
      </nav>
      <span class="who">${user.email}${user.team ? ` · ${user.team.name}` : ''}</span>
      <button type="button" onClick=${signOut}>Sign out</button>
    </header>
    <main id="main"><${current.page} key=${first} args=${rest} user=${user} /></main>`;
}

render(html`<${App} />`, document.getElementById('app'));
