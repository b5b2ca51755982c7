// Insights: build a trend (an event counted per interval over a period), see its chart
// (the exports' own options) and table, and save it; the saved insights are listed.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, project } from './api.js';
import { ErrorNote, Field, html } from './ui.js';
import { drawChart } from './chart.js';

function trendQuery(form) {
  return {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: form.event || null, name: form.event || 'All events', math: form.math }],
    interval: form.interval,
    dateRange: { date_from: form.from },
  };
}

function Chart({ insight }) {
  const box = useRef(null);
  useEffect(() => {
    if (!box.current) return undefined;
    const chart = drawChart(box.current, insight);
    return () => chart.dispose();
  }, [insight]);
  return html`<div class="chart" ref=${box} role="img" aria-label=${`Chart of ${insight.name}`}></div>`;
}

function ResultTable({ result }) {
  if (!Array.isArray(result) || result.length === 0) return null;
  const labels = result[0].labels ?? result[0].days ?? [];
  return html`
    <table class="result">
      <caption>Results</caption>
      <thead><tr><th scope="col">Series</th>${labels.map((l) => html`<th scope="col">${l}</th>`)}<th scope="col">Total</th></tr></thead>
      <tbody>${result.map((s, i) => html`<tr key=${i}><th scope="row">${s.label}</th>${(s.data ?? []).map((v) => html`<td>${v}</td>`)}<td>${s.count ?? ''}</td></tr>`)}</tbody>
    </table>`;
}

export function InsightsPage({ user }) {
  const [form, setForm] = useState({ event: '$pageview', math: 'total', interval: 'day', from: '-7d', name: '' });
  const [insight, setInsight] = useState(null);
  const [saved, setSaved] = useState([]);
  const [error, setError] = useState(null);
  const [note, setNote] = useState('');
  const timezone = user.team?.timezone ?? 'UTC';
  const loadSaved = () => api(`${project('insights')}?limit=50`).then((r) => setSaved(r.results), setError);
  useEffect(() => { loadSaved(); }, []);

  const read = (e) => Object.fromEntries(new FormData(e.currentTarget.form ?? e.currentTarget));
  const run = async (e) => {
    e.preventDefault();
    const next = { ...form, ...read(e) };
    setForm(next);
    setError(null);
    setNote('');
    try {
      const source = trendQuery(next);
      const answer = await api(project('query'), { method: 'POST', body: { query: source } });
      setInsight({ name: next.name || `${next.event || 'All events'} ${next.math === 'dau' ? 'unique users' : 'count'}`, query: { kind: 'InsightVizNode', source }, result: answer.results, timezone });
    } catch (err) {
      setError(err);
    }
  };
  const save = async () => {
    try {
      const body = { name: insight.name, query: insight.query };
      const stored = await api(project('insights'), { method: 'POST', body });
      setNote(`Saved as insight ${stored.short_id ?? stored.id}.`);
      loadSaved();
    } catch (err) {
      setError(err);
    }
  };
  return html`
    <h1>Insights</h1>
    <form class="filters" onSubmit=${run} aria-label="Trend">
      <${Field} id="i-event" label="Event"><input id="i-event" name="event" value=${form.event} /><//>
      <${Field} id="i-math" label="Count">
        <select id="i-math" name="math" value=${form.math}><option value="total">Total events</option><option value="dau">Unique users</option></select><//>
      <${Field} id="i-interval" label="Interval">
        <select id="i-interval" name="interval" value=${form.interval}>${['hour', 'day', 'week', 'month'].map((v) => html`<option value=${v}>${v}</option>`)}</select><//>
      <${Field} id="i-from" label="Period">
        <select id="i-from" name="from" value=${form.from}>${[['-24h', 'Last 24 hours'], ['-7d', 'Last 7 days'], ['-30d', 'Last 30 days'], ['-90d', 'Last 90 days']].map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select><//>
      <${Field} id="i-name" label="Name"><input id="i-name" name="name" value=${form.name} placeholder="optional" /><//>
      <button type="submit">Show trend</button>
    </form>
    <${ErrorNote} error=${error} />
    ${insight && html`
      <div class="chart-wrap"><${Chart} insight=${insight} /></div>
      <p><button type="button" onClick=${save}>Save insight</button> <span role="status">${note}</span></p>
      <${ResultTable} result=${insight.result} />`}
    <h2>Saved insights</h2>
    ${saved.length === 0 ? html`<p class="empty">None yet.</p>` : html`<ul>${saved.map((i) => html`<li key=${i.id}>${i.name || i.derived_name || i.short_id}</li>`)}</ul>`}`;
}
