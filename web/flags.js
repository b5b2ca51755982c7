// Feature flags: the list with each flag's rollout and an active switch; a form to create
// one or change its rollout and its one property condition; a flag's page (#/flags/ID) with
// its evaluations per day.
import { useEffect, useState } from 'preact/hooks';
import { api, project } from './api.js';
import { Chart, prefetchDrawing } from './chart.js';
import { ErrorNote, Field, html } from './ui.js';

const group = (flag) => flag?.filters?.groups?.[0] ?? {};
const rollout = (flag) => group(flag).rollout_percentage ?? 100;

function conditionText(flag) {
  const props = group(flag).properties ?? [];
  return props.map((p) => `${p.key} ${p.operator ?? 'exact'} ${Array.isArray(p.value) ? p.value.join(', ') : p.value}`).join('; ');
}

// Uncontrolled fields (defaultValue): a re-render (an error shown) keeps what was typed.
function FlagForm({ flag, onSaved }) {
  const [error, setError] = useState(null);
  const condition = (group(flag).properties ?? [])[0] ?? {};
  const submit = async (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const propKey = String(form.get('prop_key') ?? '').trim();
    const properties = propKey ? [{ key: propKey, type: 'person', operator: 'exact', value: String(form.get('prop_value') ?? '') }] : [];
    const body = {
      name: String(form.get('name') ?? ''),
      filters: { groups: [{ properties, rollout_percentage: Number(form.get('rollout')) }] },
    };
    try {
      if (flag) await api(project(`feature_flags/${flag.id}`), { method: 'PATCH', body });
      else await api(project('feature_flags'), { method: 'POST', body: { ...body, key: String(form.get('key') ?? '').trim(), active: true } });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return html`
    <form class="flag-form" onSubmit=${submit} aria-label=${flag ? `Edit ${flag.key}` : 'New feature flag'}>
      ${!flag && html`<${Field} id="flag-key" label="Key"><input id="flag-key" name="key" required pattern="[A-Za-z0-9_\\-]+" /><//>`}
      <${Field} id="flag-name" label="Description"><input id="flag-name" name="name" defaultValue=${flag?.name ?? ''} /><//>
      <${Field} id="flag-rollout" label="Rollout (% of users)">
        <input id="flag-rollout" name="rollout" type="number" min="0" max="100" required defaultValue=${rollout(flag)} /><//>
      <fieldset>
        <legend>Only persons whose property matches (optional)</legend>
        <${Field} id="flag-prop" label="Property"><input id="flag-prop" name="prop_key" defaultValue=${condition.key ?? ''} /><//>
        <${Field} id="flag-value" label="equals"><input id="flag-value" name="prop_value" defaultValue=${condition.value ?? ''} /><//>
      </fieldset>
      <${ErrorNote} error=${error} />
      <button type="submit">${flag ? 'Save' : 'Create flag'}</button>
    </form>`;
}

// Evaluations per day: the `$feature_flag_called` events the SDKs send for this flag,
// a trend broken down by the answer they got (PostHog's "usage" of a flag).
const evaluationsQuery = (key) => ({
  kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '-30d' },
  series: [{ kind: 'EventsNode', event: '$feature_flag_called', name: '$feature_flag_called', math: 'total' }],
  properties: [{ key: '$feature_flag', value: key, operator: 'exact', type: 'event' }],
  breakdownFilter: { breakdown: '$feature_flag_response', breakdown_type: 'event' },
});

function Evaluations({ flag, timezone }) {
  const [insight, setInsight] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const source = evaluationsQuery(flag.key);
    api(project('query'), { method: 'POST', body: { query: source } })
      .then((r) => setInsight({ name: `Evaluations of ${flag.key}`, query: { kind: 'InsightVizNode', source }, result: r.results, timezone }), setError);
  }, [flag.key]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!insight) return html`<p>Loading…</p>`;
  const total = insight.result.reduce((n, s) => n + (s.count ?? 0), 0);
  return html`
    <p>${total} evaluation${total === 1 ? '' : 's'} in the last 30 days${insight.result.length > 0 ? ', by answer:' : '.'}</p>
    ${insight.result.length > 0 && html`
      <div class="chart-wrap"><${Chart} insight=${insight} /></div>
      <table class="result">
        <caption>Evaluations by answer</caption>
        <thead><tr><th scope="col">Answer</th><th scope="col">Evaluations</th></tr></thead>
        <tbody>${insight.result.map((s) => html`<tr key=${s.label}><th scope="row">${String(s.breakdown_value ?? s.label)}</th><td>${s.count}</td></tr>`)}</tbody>
      </table>`}`;
}

function FlagPage({ id, timezone }) {
  const [flag, setFlag] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api(project(`feature_flags/${encodeURIComponent(id)}`)).then(setFlag, setError);
  useEffect(() => { prefetchDrawing(); load(); }, [id]);
  if (!flag) return html`<p><a href="#/flags">← All feature flags</a></p>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}`;
  return html`
    <p><a href="#/flags">← All feature flags</a></p>
    <h1><code>${flag.key}</code></h1>
    <p>${flag.name} · ${flag.active ? 'active' : 'inactive'} · ${rollout(flag)}% of ${conditionText(flag) || 'everyone'}</p>
    <h2>Evaluations over time</h2>
    <${Evaluations} flag=${flag} timezone=${timezone} />
    <h2>Edit</h2>
    <${FlagForm} flag=${flag} onSaved=${load} />`;
}

export function FlagsPage({ args, user }) {
  if (args[0]) return html`<${FlagPage} id=${args[0]} timezone=${user.team?.timezone ?? 'UTC'} />`;
  return html`<${FlagList} />`;
}

function FlagList() {
  const [flags, setFlags] = useState(null);
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState(null);
  const load = () => api(`${project('feature_flags')}?limit=200`).then((r) => setFlags(r.results), setError);
  useEffect(() => { load(); }, []);
  const toggle = async (flag) => {
    try {
      await api(project(`feature_flags/${flag.id}`), { method: 'PATCH', body: { active: !flag.active } });
      await load();
    } catch (err) {
      setError(err);
    }
  };
  const saved = () => { setEditing(null); load(); };
  return html`
    <h1>Feature flags</h1>
    <${ErrorNote} error=${error} />
    <p><button type="button" onClick=${() => setEditing('new')}>New flag</button></p>
    ${editing === 'new' && html`<${FlagForm} onSaved=${saved} />`}
    ${flags === null ? html`<p>Loading…</p>` : html`
      <table class="flags">
        <caption class="sr-only">Feature flags</caption>
        <thead><tr><th scope="col">Key</th><th scope="col">Description</th><th scope="col">Rollout</th><th scope="col">Conditions</th><th scope="col">Active</th><th scope="col"><span class="sr-only">Edit</span></th></tr></thead>
        <tbody>${flags.map((f) => html`
          <tr key=${f.id}>
            <td><a href=${`#/flags/${f.id}`}><code>${f.key}</code></a></td>
            <td>${f.name}</td>
            <td>${rollout(f)}%</td>
            <td>${conditionText(f) || 'everyone'}</td>
            <td><label class="switch"><input type="checkbox" checked=${f.active} onChange=${() => toggle(f)} /> <span>${f.active ? 'on' : 'off'}</span><span class="sr-only"> ${f.key} active</span></label></td>
            <td><button type="button" onClick=${() => setEditing(editing === f.id ? null : f.id)} aria-expanded=${editing === f.id}>Edit<span class="sr-only"> ${f.key}</span></button></td>
          </tr>
          ${editing === f.id && html`<tr><td colspan="6"><${FlagForm} flag=${f} onSaved=${saved} /></td></tr>`}`)}
        </tbody>
      </table>
      ${flags.length === 0 && html`<p class="empty">No feature flags yet.</p>`}`}`;
}
