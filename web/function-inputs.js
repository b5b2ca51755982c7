// A hog function's inputs as a form: each input of an inputs_schema drawn by its type, and
// the values as the API's `inputs` (shared by the new function's form and the edit form).
import { Field, html } from './ui.js';

// A dictionary input: rows of key and value, a row added or removed at a time.
function Dictionary({ id, label, value, onChange }) {
  const rows = Object.entries(value ?? {});
  const set = (next) => onChange(Object.fromEntries(next));
  const edit = (i, pos, text) => set(rows.map((r, j) => (j === i ? (pos === 0 ? [text, r[1]] : [r[0], text]) : r)));
  return html`
    <fieldset id=${id}>
      <legend>${label}</legend>
      ${rows.map(([k, v], i) => html`
        <div class="kv" key=${i}>
          <input aria-label=${`${label} key ${i + 1}`} value=${k} onInput=${(e) => edit(i, 0, e.currentTarget.value)} />
          <input aria-label=${`${label} value ${i + 1}`} value=${typeof v === 'string' ? v : JSON.stringify(v)} onInput=${(e) => edit(i, 1, e.currentTarget.value)} />
          <button type="button" onClick=${() => set(rows.filter((_, j) => j !== i))}>Remove<span class="sr-only"> ${label} ${k}</span></button>
        </div>`)}
      <button type="button" onClick=${() => onChange({ ...(value ?? {}), [`key${rows.length + 1}`]: '' })}>Add ${label.toLowerCase()} entry</button>
    </fieldset>`;
}

// One input of a template's inputs_schema, drawn by its type; json inputs are edited as text
// (checked when the form is sent), types without an editor of their own as JSON too.
// `stored`: a secret input that holds a value the API does not show (left blank, it is kept).
export function SchemaInput({ input, value, onChange, stored = false }) {
  const id = `in-${input.key}`;
  const label = `${input.label || input.key}${input.required ? ' (required)' : ''}`;
  const hint = input.description ? html`<small>${input.description}</small>` : null;
  switch (input.type) {
    case 'string':
    case 'email':
      return html`<${Field} id=${id} label=${label}><input id=${id} type=${input.type === 'email' ? 'email' : input.secret ? 'password' : 'text'} required=${input.required && !stored}
        placeholder=${stored ? 'stored: leave blank to keep it' : undefined} value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value)} />${hint}<//>`;
    case 'choice':
      return html`<${Field} id=${id} label=${label}>
        <select id=${id} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value)}>
          ${!input.required && html`<option value="">—</option>`}
          ${(input.choices ?? []).map((c) => html`<option value=${c.value}>${c.label}</option>`)}
        </select>${hint}<//>`;
    case 'boolean':
      return html`<div class="field check"><input id=${id} type="checkbox" checked=${Boolean(value)} onChange=${(e) => onChange(e.currentTarget.checked)} /><label for=${id}>${label}</label>${hint}</div>`;
    case 'dictionary':
      return html`<${Dictionary} id=${id} label=${input.label || input.key} value=${value} onChange=${onChange} />`;
    default:
      return html`<${Field} id=${id} label=${`${label} (JSON)`}>
        <textarea id=${id} rows="5" cols="60" class="code" onInput=${(e) => onChange({ json: e.currentTarget.value })}
          value=${typeof value === 'object' && value && 'json' in value ? value.json : JSON.stringify(value ?? null, null, 2)}></textarea>${hint}<//>`;
  }
}

// The form's values as the API's `inputs`: {key: {value}}, json text parsed (an error names
// the input); a stored secret left blank is sent as {secret: true}, which keeps it.
export function inputsBody(schema, values, storedSecrets = new Set()) {
  const inputs = {};
  for (const input of schema) {
    let value = values[input.key];
    if (value && typeof value === 'object' && 'json' in value) {
      try {
        value = JSON.parse(value.json);
      } catch {
        throw new Error(`${input.label || input.key}: not valid JSON.`);
      }
    }
    if (value === undefined || value === '') {
      if (storedSecrets.has(input.key)) inputs[input.key] = { secret: true };
      continue;
    }
    inputs[input.key] = { value };
  }
  return inputs;
}
