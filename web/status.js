// Status: whether this node is ready (each check), where each log consumer stands and
// how far behind, the control stream, and with a cluster every live node.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ErrorNote, html, when } from './ui.js';

export function StatusPage() {
  const [status, setStatus] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const load = () => api('/api/app/status').then(setStatus, setError);
    load();
    const timer = setInterval(load, 5000);
    return () => clearInterval(timer);
  }, []);
  if (!status) return html`<h1>Status</h1><${ErrorNote} error=${error} />`;
  return html`
    <h1>Status</h1>
    <${ErrorNote} error=${error} />
    <p class=${status.ready ? 'ok' : 'bad'}>This node is ${status.ready ? 'ready' : 'not ready'}.</p>
    <ul class="checks">${Object.entries(status.checks).map(([name, ok]) => html`<li key=${name}>${name}: ${ok ? 'ok' : `failing${status.reasons[name] ? ` (${status.reasons[name]})` : ''}`}</li>`)}</ul>
    <h2>Event log</h2>
    <p>${status.log.id}, through record ${status.log.last_seq}</p>
    <table>
      <caption>Consumers</caption>
      <thead><tr><th scope="col">Consumer</th><th scope="col">Position</th><th scope="col">Records behind</th></tr></thead>
      <tbody>${status.consumers.map((c) => html`<tr key=${c.name}><th scope="row">${c.name}</th><td>${c.position}</td><td>${c.lag_records}</td></tr>`)}</tbody>
    </table>
    <h2>Control stream</h2>
    <p>${status.control ? `applied ${status.control.applied}, ${status.control.lag} behind` : 'none: embedded, management writes are local'}</p>
    <h2>Nodes</h2>
    ${status.nodes === null ? html`<p>One process (no cluster).</p>` : html`
      <table>
        <thead><tr><th scope="col">Node</th><th scope="col">Role</th><th scope="col">Ready</th><th scope="col">Listen</th><th scope="col">Seen</th></tr></thead>
        <tbody>${status.nodes.map((n) => html`<tr key=${n.name}><th scope="row">${n.name}</th><td>${n.role}</td><td>${n.ready ? 'yes' : 'no'}</td><td>${n.listen ?? ''}</td><td>${when(n.announced_at)}</td></tr>`)}</tbody>
      </table>`}`;
}
