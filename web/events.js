// Live events: the newest events of the project, then each one as capture accepts it
// (server-sent events from /live_events), filtered by event name and distinct id; each
// event's properties open in place.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, project } from './api.js';
import { ErrorNote, Field, html, when } from './ui.js';

const KEEP = 200;

function query(filters) {
  const q = new URLSearchParams();
  if (filters.event) q.set('event', filters.event);
  if (filters.distinct_id) q.set('distinct_id', filters.distinct_id);
  return q;
}

function EventRow({ e }) {
  const [open, setOpen] = useState(false);
  const id = `props-${e.uuid}`;
  return html`
    <tr>
      <td><button type="button" class="link" aria-expanded=${open} aria-controls=${id} onClick=${() => setOpen(!open)}>${e.event}</button></td>
      <td>${e.distinct_id}</td>
      <td><time datetime=${e.timestamp}>${when(e.timestamp)}</time></td>
    </tr>
    ${open && html`<tr id=${id}><td colspan="3"><pre class="props">${JSON.stringify(e.properties, null, 2)}</pre></td></tr>`}`;
}

export function EventsPage() {
  const [filters, setFilters] = useState({ event: '', distinct_id: '' });
  const [events, setEvents] = useState([]);
  const [live, setLive] = useState(false);
  const [error, setError] = useState(null);
  const seen = useRef(new Set());

  useEffect(() => {
    seen.current = new Set();
    setEvents([]);
    setLive(false);
    const q = query(filters);
    let stopped = false;
    // Live events (oldest first in a message) go on top; the listing (newest first), which
    // may come after some of them, below.
    const fresh = (list) => {
      const out = list.filter((e) => !seen.current.has(e.uuid));
      for (const e of out) seen.current.add(e.uuid);
      return out;
    };
    const arrived = (list) => { const f = fresh(list).reverse(); if (f.length) setEvents((old) => [...f, ...old].slice(0, KEEP)); };
    const listed = (list) => { const f = fresh(list); if (f.length) setEvents((old) => [...old, ...f].slice(0, KEEP)); };
    // The tail first, so nothing arrives between the listing and the stream unseen.
    const source = new EventSource(`${project('live_events')}?${q}`);
    source.addEventListener('ready', () => {
      setLive(true);
      q.set('limit', '50');
      api(`${project('events')}?${q}`).then(({ results }) => { if (!stopped) listed(results); }, setError);
    });
    source.onmessage = (m) => arrived(JSON.parse(m.data));
    source.onerror = () => setLive(false);
    return () => { stopped = true; source.close(); };
  }, [filters.event, filters.distinct_id]);

  const submit = (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setFilters({ event: String(form.get('event') ?? '').trim(), distinct_id: String(form.get('distinct_id') ?? '').trim() });
  };

  return html`
    <h1>Live events</h1>
    <form class="filters" onSubmit=${submit}>
      <${Field} id="f-event" label="Event name"><input id="f-event" name="event" value=${filters.event} placeholder="any" /><//>
      <${Field} id="f-distinct" label="Distinct ID"><input id="f-distinct" name="distinct_id" value=${filters.distinct_id} placeholder="any" /><//>
      <button type="submit">Filter</button>
    </form>
    <p role="status" class=${live ? 'live on' : 'live'}>${live ? 'Live: new events appear as they arrive' : 'Connecting…'}</p>
    <${ErrorNote} error=${error} />
    <table class="events">
      <caption class="sr-only">Events, newest first</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Distinct ID</th><th scope="col">Time</th></tr></thead>
      <tbody>${events.map((e) => html`<${EventRow} key=${e.uuid} e=${e} />`)}</tbody>
    </table>
    ${events.length === 0 && html`<p class="empty">No events yet.</p>`}`;
}
