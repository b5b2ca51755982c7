// The insights builder's shared parts: property filters (event or person, PostHog's
// operators, or membership of one of the project's cohorts), a breakdown (event or person property, with PostHog's breakdown limit), the
// date range (presets or custom dates) and the query fields they become (and back).
import { html } from './ui.js';

// A field's props bound to the form's state: Preact writes `value` into the element on
// every render, so a value not kept in state would be put back as the user types.
export const bound = (form, setField, name) => ({ name, value: form[name], onInput: (e) => setField(name, e.currentTarget.value) });

export const PERIODS = [['-24h', 'Last 24 hours'], ['-7d', 'Last 7 days'], ['-30d', 'Last 30 days'], ['-90d', 'Last 90 days'], ['custom', 'Custom dates']];

// PostHog's operators as its filter menu names them; set/not set take no value.
export const OPERATORS = [
  ['exact', 'equals'], ['is_not', "doesn't equal"], ['icontains', 'contains'], ['not_icontains', "doesn't contain"],
  ['regex', 'matches regex'], ['not_regex', "doesn't match regex"], ['gt', 'greater than'], ['lt', 'less than'],
  ['is_set', 'is set'], ['is_not_set', 'is not set'],
];
// A cohort filter is membership: PostHog writes it as {key: 'id', type: 'cohort', operator, value: the cohort's id}.
const COHORT_OPERATORS = [['in', 'in cohort'], ['not_in', 'not in cohort']];
const NO_VALUE = new Set(['is_set', 'is_not_set']);
const NUMERIC = new Set(['gt', 'lt']);

// PostHog's default breakdown limit (the values past it are summed into "Other").
export const BREAKDOWN_LIMIT = '25';

export const emptyFilter = () => ({ type: 'event', key: '', operator: 'exact', value: '' });
export const noBreakdown = { type: '', property: '', limit: BREAKDOWN_LIMIT };

// The form's filters as the query's `properties` (rows without a key are left out). PostHog's
// UI sends equals / doesn't equal as a list of values.
export function propertiesOf(filters) {
  return filters.filter((f) => f.key.trim() !== '' && (f.type !== 'cohort' || f.value !== '')).map((f) => {
    if (f.type === 'cohort') return { key: 'id', type: 'cohort', operator: f.operator, value: Number(f.value) };
    const base = { key: f.key.trim(), type: f.type, operator: f.operator };
    if (NO_VALUE.has(f.operator)) return base;
    if (NUMERIC.has(f.operator)) return { ...base, value: Number(f.value) };
    return { ...base, value: f.operator === 'exact' || f.operator === 'is_not' ? [f.value] : f.value };
  });
}

export function filtersOf(properties) {
  const list = Array.isArray(properties) ? properties : properties?.values?.flatMap((g) => g.values ?? []) ?? [];
  return list.filter((p) => p.type === 'event' || p.type === 'person' || p.type === 'cohort').map((p) => ({
    type: p.type, key: p.key ?? '', operator: p.operator ?? (p.type === 'cohort' ? 'in' : 'exact'), value: Array.isArray(p.value) ? String(p.value[0] ?? '') : p.value == null ? '' : String(p.value),
  }));
}

export function breakdownFilterOf(b) {
  if (!b.type || b.property.trim() === '') return undefined;
  return { breakdown: b.property.trim(), breakdown_type: b.type, breakdown_limit: Number(b.limit) || Number(BREAKDOWN_LIMIT) };
}

export function breakdownOf(filter) {
  const type = filter?.breakdown_type;
  if ((type !== 'event' && type !== 'person') || typeof filter.breakdown !== 'string') return noBreakdown;
  return { type, property: filter.breakdown, limit: String(filter.breakdown_limit ?? BREAKDOWN_LIMIT) };
}

// A preset is its relative date; custom dates are a day each (the end day included).
export function dateRangeOf(f) {
  if (f.from !== 'custom') return { date_from: f.from };
  return { date_from: f.fromDate, date_to: f.toDate || undefined };
}

export function rangeFields(range, fallback) {
  const from = range?.date_from ?? fallback;
  if (PERIODS.some(([v]) => v === from) && !range?.date_to) return { from, fromDate: '', toDate: '' };
  return { from: 'custom', fromDate: String(from).slice(0, 10), toDate: String(range?.date_to ?? '').slice(0, 10) };
}

export function DateRangeFields({ prefix, form, setField }) {
  const id = `${prefix}-from`;
  return html`
    <div class="field"><label for=${id}>Date range</label>
      <select id=${id} ...${bound(form, setField, 'from')}>${PERIODS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></div>
    ${form.from === 'custom' && html`
      <div class="field"><label for=${`${prefix}-from-date`}>From</label><input id=${`${prefix}-from-date`} type="date" required ...${bound(form, setField, 'fromDate')} /></div>
      <div class="field"><label for=${`${prefix}-to-date`}>To</label><input id=${`${prefix}-to-date`} type="date" ...${bound(form, setField, 'toDate')} /></div>`}`;
}

// A row switched to or from a cohort takes that kind's own key and operator.
function retyped(f, type) {
  if (type === 'cohort') return { type, key: 'id', operator: 'in', value: '' };
  return f.type === 'cohort' ? { ...emptyFilter(), type } : { ...f, type };
}

// Rows of filters, every one of which an event must pass (PostHog's AND). `label` names the
// rows ("Filter 1 …", or a series' "Series 2 filter 1 …"); `cohorts` (the project's, when
// loaded) can be picked as a membership filter.
export function PropertyFilters({ prefix, filters, onChange, cohorts = [], label = 'Filter', legend = 'Filters (all must match)' }) {
  const edit = (i, field, value) => onChange(filters.map((f, j) => (j === i ? (field === 'type' ? retyped(f, value) : { ...f, [field]: value }) : f)));
  return html`
    <fieldset class="wide-set">
      <legend>${legend}</legend>
      ${filters.length === 0 && html`<p class="empty">No filters: every event counts.</p>`}
      ${filters.map((f, i) => {
        const id = `${prefix}-filter-${i}`;
        const n = `${label} ${i + 1}`;
        const cohort = f.type === 'cohort';
        return html`
          <div class="kv" key=${i} role="group" aria-label=${n}>
            <select aria-label=${`${n} on`} value=${f.type} onChange=${(e) => edit(i, 'type', e.currentTarget.value)}>
              <option value="event">Event property</option><option value="person">Person property</option>
              ${(cohorts.length > 0 || cohort) && html`<option value="cohort">Cohort</option>`}</select>
            ${!cohort && html`<input id=${`${id}-key`} aria-label=${`${n} property`} value=${f.key} required onInput=${(e) => edit(i, 'key', e.currentTarget.value)} />`}
            <select aria-label=${`${n} operator`} value=${f.operator} onChange=${(e) => edit(i, 'operator', e.currentTarget.value)}>
              ${(cohort ? COHORT_OPERATORS : OPERATORS).map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>
            ${cohort && html`
              <select aria-label=${`${n} cohort`} value=${f.value} required onChange=${(e) => edit(i, 'value', e.currentTarget.value)}>
                <option value="">Choose a cohort</option>
                ${cohorts.map((c) => html`<option value=${String(c.id)}>${c.name || `Cohort ${c.id}`}</option>`)}
                ${f.value !== '' && !cohorts.some((c) => String(c.id) === f.value) && html`<option value=${f.value}>Cohort ${f.value}</option>`}</select>`}
            ${!cohort && !NO_VALUE.has(f.operator) && html`
              <input aria-label=${`${n} value`} type=${NUMERIC.has(f.operator) ? 'number' : 'text'} step="any" value=${f.value} required onInput=${(e) => edit(i, 'value', e.currentTarget.value)} />`}
            <button type="button" onClick=${() => onChange(filters.filter((_, j) => j !== i))}>Remove<span class="sr-only"> ${n.toLowerCase()}</span></button>
          </div>`;
      })}
      <button type="button" onClick=${() => onChange([...filters, emptyFilter()])}>Add ${label.toLowerCase()}</button>
    </fieldset>`;
}

export function BreakdownFields({ prefix, breakdown, onChange }) {
  const set = (field, value) => onChange({ ...breakdown, [field]: value });
  return html`
    <fieldset class="wide-set">
      <legend>Breakdown</legend>
      <div class="kv">
        <select aria-label="Breakdown by" value=${breakdown.type} onChange=${(e) => set('type', e.currentTarget.value)}>
          <option value="">None</option><option value="event">Event property</option><option value="person">Person property</option></select>
        ${breakdown.type && html`
          <input id=${`${prefix}-breakdown`} aria-label="Breakdown property" required value=${breakdown.property} onInput=${(e) => set('property', e.currentTarget.value)} />
          <label for=${`${prefix}-breakdown-limit`}>Breakdown limit</label>
          <input id=${`${prefix}-breakdown-limit`} type="number" min="1" max="1000" required value=${breakdown.limit} onInput=${(e) => set('limit', e.currentTarget.value)} />`}
      </div>
    </fieldset>`;
}
