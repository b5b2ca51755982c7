// One hog function's settings edited after creation: name, enabled, its inputs (the
// creation form, filled with what is stored; secrets stay hidden and are kept unless
// typed anew), and its filters (events and property filters, PostHog's `filters`); and a
// test invocation of the form as it stands (POST …/invocations, fetches mocked unless asked).
import { useState } from 'preact/hooks';
import { api, fnPath, project } from './api.js';
import { ErrorNote, Field, html } from './ui.js';
import { inputsBody, SchemaInput } from './function-inputs.js';
import { filtersOf, PropertyFilters, propertiesOf } from './insight-filters.js';

// The form's state from the stored function.
export function formOfFunction(fn) {
  const values = {};
  const secrets = new Set();
  for (const [key, input] of Object.entries(fn.inputs ?? {})) {
    if (input && input.secret === true && !('value' in input)) secrets.add(key);
    else values[key] = input?.value;
  }
  return {
    name: fn.name ?? '', enabled: fn.enabled === true, values, secrets,
    events: (fn.filters?.events ?? []).map((e) => e.id ?? e.name ?? ''), filters: filtersOf(fn.filters?.properties ?? []),
  };
}

// The API's body for the form: `filters` keeps what the form does not edit (actions, test accounts).
function bodyOf(fn, form) {
  const events = form.events.map((e) => e.trim()).filter(Boolean);
  return {
    name: form.name.trim() || fn.name, enabled: form.enabled,
    inputs: inputsBody(fn.inputs_schema ?? [], form.values, form.secrets),
    filters: {
      ...(fn.filters ?? {}),
      events: events.map((id, order) => ({ id, name: id, type: 'events', order })),
      properties: propertiesOf(form.filters),
    },
  };
}

function EventFilters({ events, onChange }) {
  return html`
    <fieldset class="wide-set">
      <legend>Events (none: every event)</legend>
      ${events.map((e, i) => html`
        <div class="kv" key=${i}>
          <label for=${`fn-event-${i}`}>Event ${i + 1}</label>
          <input id=${`fn-event-${i}`} value=${e} required onInput=${(ev) => onChange(events.map((x, j) => (j === i ? ev.currentTarget.value : x)))} />
          <button type="button" onClick=${() => onChange(events.filter((_, j) => j !== i))}>Remove<span class="sr-only"> event ${i + 1}</span></button>
        </div>`)}
      <button type="button" onClick=${() => onChange([...events, ''])}>Add event</button>
    </fieldset>`;
}

export function EditFunction({ fn, onSaved, onCancel }) {
  const [form, setForm] = useState(() => formOfFunction(fn));
  const [error, setError] = useState(null);
  const set = (field, value) => setForm((old) => ({ ...old, [field]: value }));
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await api(fnPath(fn.id), { method: 'PATCH', body: bodyOf(fn, form) });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return html`
    <form class="flag-form" onSubmit=${submit} aria-label="Edit hog function">
      <${Field} id="fn-edit-name" label="Name"><input id="fn-edit-name" required value=${form.name} onInput=${(e) => set('name', e.currentTarget.value)} /><//>
      <div class="field check"><input id="fn-edit-enabled" type="checkbox" checked=${form.enabled} onChange=${(e) => set('enabled', e.currentTarget.checked)} /><label for="fn-edit-enabled">Enabled</label></div>
      <h3>Inputs</h3>
      ${(fn.inputs_schema ?? []).map((input) => html`
        <${SchemaInput} key=${input.key} input=${input} value=${form.values[input.key]} stored=${form.secrets.has(input.key)}
          onChange=${(v) => set('values', { ...form.values, [input.key]: v })} />`)}
      <h3>Filters</h3>
      <${EventFilters} events=${form.events} onChange=${(v) => set('events', v)} />
      <${PropertyFilters} prefix="fn" filters=${form.filters} onChange=${(v) => set('filters', v)} />
      <${ErrorNote} error=${error} />
      <button type="submit">Save function</button> <button type="button" onClick=${onCancel}>Cancel</button>
    </form>`;
}

const SAMPLE = JSON.stringify({ event: '$pageview', distinct_id: 'test-user', properties: { $current_url: 'https://example.com/' } }, null, 2);

// A test run of the saved function on an event typed here: its status, errors and log lines.
export function TestInvocation({ fn }) {
  const [text, setText] = useState(SAMPLE);
  const [real, setReal] = useState(false);
  const [outcome, setOutcome] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = async (e) => {
    e.preventDefault();
    setError(null);
    setOutcome(null);
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      setError(new Error('The test event is not valid JSON.'));
      return;
    }
    setBusy(true);
    try {
      const configuration = {
        // The stored secrets are shown as {secret: true}, which the test run reads as "the stored value".
        type: fn.type, name: fn.name, hog: fn.hog, inputs_schema: fn.inputs_schema, inputs: fn.inputs, filters: fn.filters, mappings: fn.mappings ?? null,
      };
      // A person beside the event, as PostHog's sample globals have one (templates read {person}).
      const globals = {
        event: { uuid: crypto.randomUUID(), timestamp: new Date().toISOString(), properties: {}, ...event },
        person: { id: crypto.randomUUID(), properties: {} },
      };
      setOutcome(await api(fnPath(fn.id, '/invocations'), { method: 'POST', body: { configuration, globals, mock_async_functions: !real } }));
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  };
  return html`
    <form class="flag-form" onSubmit=${run} aria-label="Test invocation">
      <div class="field wide"><label for="fn-test-event">Test event (JSON)</label>
        <textarea id="fn-test-event" rows="6" cols="60" class="code" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea></div>
      <div class="field check"><input id="fn-test-real" type="checkbox" checked=${real} onChange=${(e) => setReal(e.currentTarget.checked)} /><label for="fn-test-real">Make real requests (otherwise fetches are mocked)</label></div>
      <button type="submit" disabled=${busy}>Test function</button>
      <${ErrorNote} error=${error} />
      ${outcome && html`
        <p role="status">Test ${outcome.status}${outcome.errors?.length ? `: ${outcome.errors.join('; ')}` : ''}</p>
        <table class="logs">
          <caption>Test logs</caption>
          <thead><tr><th scope="col">Level</th><th scope="col">Message</th></tr></thead>
          <tbody>${(outcome.logs ?? []).map((l, i) => html`<tr key=${i}><td class=${l.level === 'error' ? 'bad' : ''}>${l.level}</td><td>${l.message}</td></tr>`)}</tbody>
        </table>`}
    </form>`;
}
