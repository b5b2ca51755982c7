// Persons: search by distinct id, email or name (the persons API's search), and one
// person's properties and latest events.
import { useEffect, useState } from 'preact/hooks';
import { api, project } from './api.js';
import { ErrorNote, Field, html, when } from './ui.js';

const label = (p) => p.properties?.email ?? p.properties?.name ?? p.distinct_ids?.[0] ?? p.uuid;

function Person({ id }) {
  const [person, setPerson] = useState(null);
  const [events, setEvents] = useState([]);
  const [error, setError] = useState(null);
  useEffect(() => {
    api(project(`persons/${encodeURIComponent(id)}`)).then((p) => {
      setPerson(p);
      const q = new URLSearchParams({ distinct_id: p.distinct_ids[0] ?? '', limit: '50' });
      return api(`${project('events')}?${q}`).then((r) => setEvents(r.results));
    }).catch(setError);
  }, [id]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!person) return html`<p>Loading…</p>`;
  return html`
    <p><a href="#/persons">← All persons</a></p>
    <h1>${label(person)}</h1>
    <p>Distinct IDs: ${person.distinct_ids.join(', ')}</p>
    <h2>Properties</h2>
    <table class="props-table">
      <thead><tr><th scope="col">Property</th><th scope="col">Value</th></tr></thead>
      <tbody>${Object.entries(person.properties ?? {}).map(([k, v]) => html`<tr key=${k}><th scope="row">${k}</th><td>${typeof v === 'string' ? v : JSON.stringify(v)}</td></tr>`)}</tbody>
    </table>
    <h2>Latest events</h2>
    <table>
      <thead><tr><th scope="col">Event</th><th scope="col">Time</th></tr></thead>
      <tbody>${events.map((e) => html`<tr key=${e.uuid}><td>${e.event}</td><td>${when(e.timestamp)}</td></tr>`)}</tbody>
    </table>`;
}

export function PersonsPage({ args }) {
  const [search, setSearch] = useState('');
  const [persons, setPersons] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (args[0]) return;
    const q = new URLSearchParams({ limit: '100' });
    if (search) q.set('search', search);
    api(`${project('persons')}?${q}`).then((r) => setPersons(r.results), setError);
  }, [search, args[0]]);
  if (args[0]) return html`<${Person} id=${args[0]} />`;
  const submit = (e) => { e.preventDefault(); setSearch(String(new FormData(e.currentTarget).get('search') ?? '').trim()); };
  return html`
    <h1>Persons</h1>
    <form class="filters" role="search" onSubmit=${submit}>
      <${Field} id="p-search" label="Search (distinct ID, email, name)"><input id="p-search" name="search" type="search" value=${search} /><//>
      <button type="submit">Search</button>
    </form>
    <${ErrorNote} error=${error} />
    ${persons === null ? html`<p>Loading…</p>` : html`
      <table>
        <thead><tr><th scope="col">Person</th><th scope="col">Distinct IDs</th><th scope="col">First seen</th></tr></thead>
        <tbody>${persons.map((p) => html`<tr key=${p.uuid}><td><a href="#/persons/${p.uuid}">${label(p)}</a></td><td>${p.distinct_ids.join(', ')}</td><td>${when(p.created_at)}</td></tr>`)}</tbody>
      </table>
      ${persons.length === 0 && html`<p class="empty">No persons found.</p>`}`}`;
}
