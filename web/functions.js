// Hog functions: the list (name, type, template, an enabled switch), a new function made
// from a template of the catalogue with a form drawn from the template's inputs_schema, and
// one function's settings (edited: ./function-edit.js), a test invocation, its logs and
// delivery metrics.
import { useEffect, useState } from 'preact/hooks';
import { api, fnPath, project } from './api.js';
import { ErrorNote, Field, html, when } from './ui.js';
import { inputsBody, SchemaInput } from './function-inputs.js';
import { EditFunction, TestInvocation } from './function-edit.js';

function EnabledSwitch({ fn, onChanged, onError }) {
  const toggle = async () => {
    try {
      await api(fnPath(fn.id), { method: 'PATCH', body: { enabled: !fn.enabled } });
      onChanged();
    } catch (err) {
      onError(err);
    }
  };
  return html`<label class="switch"><input type="checkbox" checked=${fn.enabled} onChange=${toggle} /> <span>${fn.enabled ? 'on' : 'off'}</span><span class="sr-only"> ${fn.name} enabled</span></label>`;
}

function NewFunction({ onCreated }) {
  const [templates, setTemplates] = useState(null);
  const [template, setTemplate] = useState(null);
  const [values, setValues] = useState({});
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  useEffect(() => { api(`${project('hog_function_templates')}?type=destination&limit=200`).then((r) => setTemplates(r.results), setError); }, []);
  const pick = (e) => {
    const t = templates.find((x) => x.id === e.currentTarget.value) ?? null;
    setTemplate(t);
    setName(t?.name ?? '');
    setValues(Object.fromEntries((t?.inputs_schema ?? []).filter((i) => i.default !== undefined).map((i) => [i.key, i.default])));
  };
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const made = await api(project('hog_functions'), {
        method: 'POST', body: { type: template.type, template_id: template.id, name: name.trim() || template.name, enabled: true, inputs: inputsBody(template.inputs_schema ?? [], values) },
      });
      onCreated(made);
    } catch (err) {
      setError(err);
    }
  };
  if (templates === null) return html`<p>Loading templates…</p><${ErrorNote} error=${error} />`;
  return html`
    <form class="flag-form" onSubmit=${submit} aria-label="New hog function">
      <${Field} id="fn-template" label="Template">
        <select id="fn-template" onChange=${pick} value=${template?.id ?? ''}>
          <option value="">Choose a template…</option>
          ${templates.map((t) => html`<option key=${t.id} value=${t.id}>${t.name}</option>`)}
        </select><//>
      ${template && html`
        <p class="empty">${template.description}</p>
        <${Field} id="fn-name" label="Name"><input id="fn-name" value=${name} onInput=${(e) => setName(e.currentTarget.value)} /><//>
        ${(template.inputs_schema ?? []).map((input) => html`
          <${SchemaInput} key=${`${template.id}-${input.key}`} input=${input} value=${values[input.key]} onChange=${(v) => setValues((old) => ({ ...old, [input.key]: v }))} />`)}
        <${ErrorNote} error=${error} />
        <button type="submit">Create function</button>`}
    </form>`;
}

function Metrics({ id }) {
  const [metrics, setMetrics] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api(`${fnPath(id, '/metrics')}?interval=day&after=-7d&breakdown_by=name`).then(setMetrics, setError); }, [id]);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!metrics) return html`<p>Loading…</p>`;
  if (metrics.series.length === 0) return html`<p class="empty">Nothing delivered in the last 7 days.</p>`;
  return html`
    <table class="result">
      <caption>Metrics, last 7 days</caption>
      <thead><tr><th scope="col">Metric</th>${metrics.labels.map((l) => html`<th scope="col">${l}</th>`)}<th scope="col">Total</th></tr></thead>
      <tbody>${metrics.series.map((s) => html`<tr key=${s.name}><th scope="row">${s.name}</th>${s.values.map((v) => html`<td>${v}</td>`)}<td>${s.values.reduce((a, b) => a + b, 0)}</td></tr>`)}</tbody>
    </table>`;
}

function Logs({ id }) {
  const [logs, setLogs] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api(`${fnPath(id, '/logs')}?limit=100`).then((r) => setLogs(r.results), setError);
  useEffect(() => { load(); }, [id]);
  return html`
    <p><button type="button" onClick=${load}>Reload logs</button></p>
    <${ErrorNote} error=${error} />
    ${logs === null ? html`<p>Loading…</p>` : logs.length === 0 ? html`<p class="empty">No log lines yet.</p>` : html`
      <table class="logs">
        <caption class="sr-only">Logs</caption>
        <thead><tr><th scope="col">Time</th><th scope="col">Level</th><th scope="col">Invocation</th><th scope="col">Message</th></tr></thead>
        <tbody>${logs.map((l, i) => html`
          <tr key=${i}><td>${when(l.timestamp)}</td><td class=${l.level === 'ERROR' ? 'bad' : ''}>${l.level}</td><td><code>${l.instance_id.slice(0, 8)}</code></td><td>${l.message}</td></tr>`)}</tbody>
      </table>`}`;
}

function HogFunction({ id }) {
  const [fn, setFn] = useState(null);
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState(false);
  const load = () => api(fnPath(id)).then(setFn, setError);
  useEffect(() => { load(); }, [id]);
  if (!fn) return html`<p><a href="#/functions">← All hog functions</a></p>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}`;
  const events = (fn.filters?.events ?? []).map((e) => e.id ?? e.name);
  return html`
    <p><a href="#/functions">← All hog functions</a></p>
    <h1>${fn.name}</h1>
    <p>${fn.type}${fn.template ? ` · from ${fn.template.name}` : ''} · <${EnabledSwitch} fn=${fn} onChanged=${load} onError=${setError} />${' · '}${events.length ? `on ${events.join(', ')}` : 'on every event'}${fn.filters?.properties?.length ? `, ${fn.filters.properties.length} property filter${fn.filters.properties.length === 1 ? '' : 's'}` : ''}</p>
    <${ErrorNote} error=${error} />
    ${editing ? html`<${EditFunction} fn=${fn} onSaved=${() => { setEditing(false); load(); }} onCancel=${() => setEditing(false)} />` : html`
      <p><button type="button" onClick=${() => setEditing(true)}>Edit function</button></p>`}
    <h2>Test</h2>
    <${TestInvocation} fn=${fn} />
    <h2>Metrics</h2>
    <${Metrics} id=${fn.id} />
    <h2>Logs</h2>
    <${Logs} id=${fn.id} />`;
}

function FunctionList() {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const [creating, setCreating] = useState(false);
  const load = () => api(`${project('hog_functions')}?limit=200`).then((r) => setList(r.results), setError);
  useEffect(() => { load(); }, []);
  return html`
    <h1>Hog functions</h1>
    <${ErrorNote} error=${error} />
    <p><button type="button" aria-expanded=${creating} onClick=${() => setCreating(!creating)}>New from template</button></p>
    ${creating && html`<${NewFunction} onCreated=${(made) => { location.hash = `#/functions/${made.id}`; }} />`}
    ${list === null ? html`<p>Loading…</p>` : list.length === 0 ? html`<p class="empty">No hog functions yet.</p>` : html`
      <table>
        <caption class="sr-only">Hog functions</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Template</th><th scope="col">Enabled</th></tr></thead>
        <tbody>${list.map((fn) => html`
          <tr key=${fn.id}>
            <td><a href=${`#/functions/${fn.id}`}>${fn.name}</a></td>
            <td>${fn.type}</td>
            <td>${fn.template?.name ?? 'custom'}</td>
            <td><${EnabledSwitch} fn=${fn} onChanged=${load} onError=${setError} /></td>
          </tr>`)}</tbody>
      </table>`}`;
}

export function FunctionsPage({ args }) {
  return args[0] ? html`<${HogFunction} id=${args[0]} />` : html`<${FunctionList} />`;
}
