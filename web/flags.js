// Feature flags: the list with each flag's rollout and an active switch; a form to create
// one or change its rollout and its one property condition.
import { useEffect, useState } from 'preact/hooks';
import { api, project } from './api.js';
import { ErrorNote, Field, html } from './ui.js';

const group = (flag) => flag?.filters?.groups?.[0] ?? {};
const rollout = (flag) => group(flag).rollout_percentage ?? 100;

function conditionText(flag) {
  const props = group(flag).properties ?? [];
  return props.map((p) => `${p.key} ${p.operator ?? 'exact'} ${Array.isArray(p.value) ? p.value.join(', ') : p.value}`).join('; ');
}

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
      <${Field} id="flag-name" label="Description"><input id="flag-name" name="name" value=${flag?.name ?? ''} /><//>
      <${Field} id="flag-rollout" label="Rollout (% of users)">
        <input id="flag-rollout" name="rollout" type="number" min="0" max="100" required value=${rollout(flag)} /><//>
      <fieldset>
        <legend>Only persons whose property matches (optional)</legend>
        <${Field} id="flag-prop" label="Property"><input id="flag-prop" name="prop_key" value=${condition.key ?? ''} /><//>
        <${Field} id="flag-value" label="equals"><input id="flag-value" name="prop_value" value=${condition.value ?? ''} /><//>
      </fieldset>
      <${ErrorNote} error=${error} />
      <button type="submit">${flag ? 'Save' : 'Create flag'}</button>
    </form>`;
}

export function FlagsPage() {
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
            <td><code>${f.key}</code></td>
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
