// Insights: build a trend, a funnel, a retention or a HogQL query, see its chart (the
// exports' own options) and its table, and save it; the saved insights are listed, and one
// opened (#/insights/ID) is shown with its form filled from its query. Trends and funnels
// take property filters (cohorts among them), a breakdown and a date range
// (./insight-filters.js); a trend has one or more series, each its event, math and filters.
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatPercent, retentionFill } from 'hedgerow/chart';
import { api, project } from './api.js';
import { Chart, prefetchDrawing } from './chart.js';
import { ErrorNote, Field, html } from './ui.js';
import {
  bound, BreakdownFields, breakdownFilterOf, breakdownOf, DateRangeFields, dateRangeOf, filtersOf, noBreakdown, PropertyFilters, propertiesOf, rangeFields,
} from './insight-filters.js';

const KINDS = [['trend', 'Trend'], ['funnel', 'Funnel'], ['retention', 'Retention'], ['hogql', 'HogQL']];
// PostHog's math for a series: counts of events or of users, or a property's aggregate.
const MATHS = [
  ['total', 'Total count'], ['dau', 'Unique users'], ['weekly_active', 'Weekly active users'], ['monthly_active', 'Monthly active users'], ['unique_session', 'Unique sessions'],
  ['sum', 'Property sum'], ['avg', 'Property average'], ['min', 'Property minimum'], ['max', 'Property maximum'], ['median', 'Property median'],
];
const PROPERTY_MATHS = new Set(['sum', 'avg', 'min', 'max', 'median']);
const NO_DATES = { fromDate: '', toDate: '' };
const FILTERED = { filters: [], breakdown: noBreakdown };

const newSeries = (event = '') => ({ event, math: 'total', mathProperty: '', filters: [] });

const DEFAULTS = {
  trend: { series: [newSeries('$pageview')], interval: 'day', from: '-7d', ...NO_DATES, ...FILTERED },
  funnel: { steps: ['$pageview', 'signed_up'], window: '14', unit: 'day', from: '-30d', ...NO_DATES, ...FILTERED },
  retention: { target: '$pageview', returning: '$pageview', period: 'Day', intervals: '7', from: '-7d', ...NO_DATES },
  hogql: { text: 'select event, count() as total\nfrom events\ngroup by event\norder by total desc\nlimit 20' },
};

const entity = (event) => ({ id: event, name: event, type: 'events' });

// The query each form asks for, and the form a saved query fills in (the way back).
// Filters and a breakdown only where the form has them (a saved query stays as PostHog writes it).
const filtered = (f) => ({
  ...(f.filters.some((x) => x.key.trim()) ? { properties: propertiesOf(f.filters) } : {}),
  ...(breakdownFilterOf(f.breakdown) ? { breakdownFilter: breakdownFilterOf(f.breakdown) } : {}),
});

// A trend's series as PostHog's `series` array: each its event (null: all events), math and
// its own `properties`, beside the query's filters that every series passes.
const seriesNode = (s) => ({
  kind: 'EventsNode', event: s.event || null, name: s.event || 'All events', math: s.math,
  ...(PROPERTY_MATHS.has(s.math) ? { math_property: s.mathProperty.trim() } : {}),
  ...(s.filters.some((x) => x.key.trim()) ? { properties: propertiesOf(s.filters) } : {}),
});

const QUERIES = {
  trend: (f) => ({
    kind: 'TrendsQuery', interval: f.interval, dateRange: dateRangeOf(f), series: f.series.map(seriesNode), ...filtered(f),
  }),
  funnel: (f) => ({
    kind: 'FunnelsQuery', dateRange: dateRangeOf(f),
    series: f.steps.map((event) => ({ kind: 'EventsNode', event, name: event })),
    funnelsFilter: { funnelWindowInterval: Number(f.window), funnelWindowIntervalUnit: f.unit, funnelVizType: 'steps', funnelOrderType: 'ordered' },
    ...filtered(f),
  }),
  retention: (f) => ({
    kind: 'RetentionQuery', dateRange: dateRangeOf(f),
    retentionFilter: { period: f.period, totalIntervals: Number(f.intervals), retentionType: 'retention_first_time', targetEntity: entity(f.target), returningEntity: entity(f.returning) },
  }),
  hogql: (f) => ({ kind: 'HogQLQuery', query: f.text }),
};

function formOf(query) {
  const source = query?.source ?? query ?? {};
  const range = (fallback) => rangeFields(source.dateRange, fallback);
  const filters = () => ({ filters: filtersOf(source.properties), breakdown: breakdownOf(source.breakdownFilter) });
  switch (source.kind) {
    case 'TrendsQuery': {
      const series = (source.series?.length ? source.series : [{}]).map((s) => ({
        event: s.event ?? '', math: s.math ?? 'total', mathProperty: s.math_property ?? '', filters: filtersOf(s.properties),
      }));
      return ['trend', { ...DEFAULTS.trend, series, interval: source.interval ?? 'day', ...range('-7d'), ...filters() }];
    }
    case 'FunnelsQuery': {
      const f = source.funnelsFilter ?? {};
      return ['funnel', {
        steps: (source.series ?? []).map((s) => s.event ?? ''), window: String(f.funnelWindowInterval ?? 14), unit: f.funnelWindowIntervalUnit ?? 'day', ...range('-30d'), ...filters(),
      }];
    }
    case 'RetentionQuery': {
      const f = source.retentionFilter ?? {};
      return ['retention', { target: f.targetEntity?.id ?? '', returning: f.returningEntity?.id ?? '', period: f.period ?? 'Day', intervals: String(f.totalIntervals ?? 7), ...range('-7d') }];
    }
    case 'HogQLQuery': return ['hogql', { text: source.query ?? '' }];
    default: return null;
  }
}

function defaultName(kind, f) {
  switch (kind) {
    case 'trend': {
      const what = (s) => (PROPERTY_MATHS.has(s.math) ? `${s.math} of ${s.mathProperty}` : s.math === 'total' ? 'count' : MATHS.find(([m]) => m === s.math)?.[1].toLowerCase() ?? s.math);
      const named = f.series.map((s) => `${s.event || 'All events'} ${what(s)}`).join(' & ');
      return `${named}${breakdownFilterOf(f.breakdown) ? ` by ${f.breakdown.property}` : ''}`;
    }
    case 'funnel': return `Funnel: ${f.steps.join(' → ')}`;
    case 'retention': return `Retention: ${f.target} then ${f.returning}`;
    default: return 'HogQL query';
  }
}

function FilterAndBreakdown({ prefix, form, setField, cohorts }) {
  return html`
    <${PropertyFilters} prefix=${prefix} filters=${form.filters} cohorts=${cohorts} onChange=${(v) => setField('filters', v)} />
    <${BreakdownFields} prefix=${prefix} breakdown=${form.breakdown} onChange=${(v) => setField('breakdown', v)} />`;
}

// One series of a trend: a group named "Series N" holding its event, measure and filters.
function SeriesFields({ series, i, count, onChange, onRemove, cohorts }) {
  const n = i + 1;
  const id = (field) => `i-s${i}-${field}`;
  const setField = (field, value) => onChange({ ...series, [field]: value });
  return html`
    <fieldset class="wide-set series">
      <legend>Series ${n}</legend>
      <${Field} id=${id('event')} label="Event"><input id=${id('event')} ...${bound(series, setField, 'event')} /><//>
      <${Field} id=${id('math')} label="Measure">
        <select id=${id('math')} ...${bound(series, setField, 'math')}>${MATHS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select><//>
      ${PROPERTY_MATHS.has(series.math) && html`
        <${Field} id=${id('math-property')} label="Of property"><input id=${id('math-property')} required ...${bound(series, setField, 'mathProperty')} /><//>`}
      ${count > 1 && html`<button type="button" onClick=${onRemove}>Remove series ${n}</button>`}
      <${PropertyFilters} prefix=${`i-s${i}`} filters=${series.filters} cohorts=${cohorts} label=${`Series ${n} filter`} legend=${`Series ${n} filters`}
        onChange=${(v) => setField('filters', v)} />
    </fieldset>`;
}

function TrendFields({ form, setField, cohorts }) {
  const series = form.series;
  return html`
    ${series.map((s, i) => html`
      <${SeriesFields} key=${i} series=${s} i=${i} count=${series.length} cohorts=${cohorts}
        onChange=${(next) => setField('series', series.map((x, j) => (j === i ? next : x)))}
        onRemove=${() => setField('series', series.filter((_, j) => j !== i))} />`)}
    <p class="wide"><button type="button" onClick=${() => setField('series', [...series, newSeries()])}>Add series</button></p>
    <${Field} id="i-interval" label="Interval">
      <select id="i-interval" ...${bound(form, setField, 'interval')}>${['hour', 'day', 'week', 'month'].map((v) => html`<option value=${v}>${v}</option>`)}</select><//>
    <${DateRangeFields} prefix="i" form=${form} setField=${setField} />
    <${FilterAndBreakdown} prefix="i" form=${form} setField=${setField} cohorts=${cohorts} />`;
}

function FunnelFields({ form, setField, cohorts }) {
  const steps = form.steps;
  const setSteps = (next) => setField('steps', next);
  return html`
    <fieldset class="steps">
      <legend>Steps, in order</legend>
      ${steps.map((s, i) => html`
        <div class="kv" key=${i}>
          <label for=${`f-step-${i}`}>Step ${i + 1} event</label>
          <input id=${`f-step-${i}`} name=${`step-${i}`} value=${s} required onInput=${(e) => setSteps(steps.map((x, j) => (j === i ? e.currentTarget.value : x)))} />
          ${steps.length > 2 && html`<button type="button" onClick=${() => setSteps(steps.filter((_, j) => j !== i))}>Remove<span class="sr-only"> step ${i + 1}</span></button>`}
        </div>`)}
      <button type="button" onClick=${() => setSteps([...steps, ''])}>Add step</button>
    </fieldset>
    <${Field} id="f-window" label="Conversion window"><input id="f-window" type="number" min="1" required ...${bound(form, setField, 'window')} /><//>
    <${Field} id="f-unit" label="Window unit">
      <select id="f-unit" ...${bound(form, setField, 'unit')}>${['minute', 'hour', 'day', 'week', 'month'].map((u) => html`<option value=${u}>${u}s</option>`)}</select><//>
    <${DateRangeFields} prefix="f" form=${form} setField=${setField} />
    <${FilterAndBreakdown} prefix="f" form=${form} setField=${setField} cohorts=${cohorts} />`;
}

function RetentionFields({ form, setField }) {
  return html`
    <${Field} id="r-target" label="Cohort event (first time)"><input id="r-target" required ...${bound(form, setField, 'target')} /><//>
    <${Field} id="r-returning" label="Returning event"><input id="r-returning" required ...${bound(form, setField, 'returning')} /><//>
    <${Field} id="r-period" label="Period">
      <select id="r-period" ...${bound(form, setField, 'period')}>${['Hour', 'Day', 'Week', 'Month'].map((p) => html`<option value=${p}>${p}</option>`)}</select><//>
    <${Field} id="r-intervals" label="Periods shown"><input id="r-intervals" type="number" min="1" max="60" required ...${bound(form, setField, 'intervals')} /><//>
    <${DateRangeFields} prefix="r" form=${form} setField=${setField} />`;
}

// "Syntax error at line 2, column 7: …" (column: characters before it on its line): where
// the query went wrong, as a line and a caret.
function errorPosition(text, error) {
  const m = /line (\d+), column (\d+)/.exec(error?.message ?? '');
  if (!m) return null;
  const line = Number(m[1]);
  const column = Number(m[2]);
  const source = text.split('\n')[line - 1] ?? '';
  return { line, column, source, offset: text.split('\n').slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column };
}

// The line under a caret at the column (htm would fold a newline written in the template).
const caretText = (at) => `line ${at.line}: ${at.source}\n${' '.repeat(`line ${at.line}: `.length + at.column)}^`;

function HogQLFields({ form, setField, error, area }) {
  const at = errorPosition(form.text, error);
  return html`
    <div class="field wide">
      <label for="q-text">HogQL query</label>
      <textarea id="q-text" ref=${area} rows="8" cols="80" class="code" spellcheck="false" aria-describedby=${at ? 'q-error-at' : undefined} ...${bound(form, setField, 'text')}></textarea>
      ${at && html`<pre id="q-error-at" class="error-at">${caretText(at)}</pre>`}
    </div>`;
}

function TrendTable({ result }) {
  if (!Array.isArray(result) || result.length === 0) return null;
  const labels = result[0].labels ?? result[0].days ?? [];
  return html`
    <table class="result">
      <caption>Results</caption>
      <thead><tr><th scope="col">Series</th>${labels.map((l) => html`<th scope="col">${l}</th>`)}<th scope="col">Total</th></tr></thead>
      <tbody>${result.map((s, i) => html`<tr key=${i}><th scope="row">${s.label}</th>${(s.data ?? []).map((v) => html`<td>${v}</td>`)}<td>${s.count ?? ''}</td></tr>`)}</tbody>
    </table>`;
}

const breakdownLabel = (v) => (Array.isArray(v) ? v.join(', ') : v === null || v === undefined || v === '' ? '(none)' : String(v));

// One table of steps; with a breakdown, one per value (PostHog's result is then a list of funnels).
function FunnelTable({ result }) {
  if (!Array.isArray(result) || result.length === 0) return null;
  const funnels = Array.isArray(result[0]) ? result : [result];
  const broken = Array.isArray(result[0]) && funnels.some((f) => f[0]?.breakdown_value !== undefined);
  return funnels.map((steps, n) => html`<${FunnelSteps} key=${n} steps=${steps} caption=${broken ? `Steps: ${breakdownLabel(steps[0]?.breakdown_value)}` : 'Steps'} />`);
}

function FunnelSteps({ steps, caption }) {
  if (!Array.isArray(steps) || steps.length === 0) return null;
  const first = steps[0].count || 0;
  const rate = (n, of) => (of > 0 ? formatPercent(n / of) : '—');
  return html`
    <table class="result">
      <caption>${caption}</caption>
      <thead><tr><th scope="col">Step</th><th scope="col">Event</th><th scope="col">Persons</th><th scope="col">From previous step</th><th scope="col">From first step</th><th scope="col">Dropped off</th></tr></thead>
      <tbody>${steps.map((s, i) => html`
        <tr key=${i}>
          <td>${i + 1}</td><th scope="row">${s.custom_name || s.name}</th><td>${s.count}</td>
          <td>${i === 0 ? '' : rate(s.count, steps[i - 1].count)}</td><td>${rate(s.count, first)}</td>
          <td>${i === 0 ? '' : steps[i - 1].count - s.count}</td>
        </tr>`)}</tbody>
    </table>`;
}

// Relative luminance (WCAG), so each cell's text keeps its contrast on its shade.
function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// PostHog's cohort table: a row per cohort with its size, a cell per period with the share
// of the cohort that came back, shaded as the exported chart shades it.
// A cohort by the day it starts, in the project's time zone (PostHog's own labels are "Day 0", …).
function cohortName(cohort, timeZone) {
  if (typeof cohort.date !== 'string') return cohort.label;
  return new Date(cohort.date).toLocaleDateString(undefined, { timeZone, day: 'numeric', month: 'short', year: 'numeric' });
}

function RetentionTable({ result, timezone }) {
  if (!Array.isArray(result) || result.length === 0) return null;
  const periods = result.reduce((n, c) => Math.max(n, c.values?.length ?? 0), 0);
  const titles = Array.from({ length: periods }, (_, p) => result.find((c) => c.values?.[p]?.label)?.values[p].label ?? `Period ${p}`);
  return html`
    <table class="result cohorts">
      <caption>Cohorts</caption>
      <thead><tr><th scope="col">Cohort</th><th scope="col">Persons</th>${titles.map((t) => html`<th scope="col">${t}</th>`)}</tr></thead>
      <tbody>${result.map((c, i) => {
        const size = c.values?.[0]?.count ?? 0;
        return html`<tr key=${i}>
          <th scope="row">${cohortName(c, timezone)}</th><td>${size}</td>
          ${Array.from({ length: periods }, (_, p) => {
            // Periods a cohort has not reached yet are blank, as PostHog draws them.
            if (p >= result.length - i || size === 0) return html`<td></td>`;
            const share = (c.values[p]?.count ?? 0) / size;
            const fill = retentionFill(share);
            return html`<td style=${`background:${fill};color:${luminance(fill) < 0.18 ? '#fff' : '#000'}`}>${formatPercent(share)}</td>`;
          })}
        </tr>`;
      })}</tbody>
    </table>`;
}

function RowsTable({ columns, rows }) {
  if (!Array.isArray(rows)) return null;
  const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  return html`
    <table class="result">
      <caption>${rows.length} row${rows.length === 1 ? '' : 's'}</caption>
      <thead><tr>${(columns ?? []).map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
      <tbody>${rows.map((r, i) => html`<tr key=${i}>${r.map((v) => html`<td>${cell(v)}</td>`)}</tr>`)}</tbody>
    </table>`;
}

function Shown({ kind, insight }) {
  if (kind === 'hogql') return html`<${RowsTable} columns=${insight.columns} rows=${insight.result} />`;
  return html`
    <div class="chart-wrap"><${Chart} insight=${insight} /></div>
    ${kind === 'trend' && html`<${TrendTable} result=${insight.result} />`}
    ${kind === 'funnel' && html`<${FunnelTable} result=${insight.result} />`}
    ${kind === 'retention' && html`<${RetentionTable} result=${insight.result} timezone=${insight.timezone} />`}`;
}

export function InsightsPage({ user, args }) {
  const [kind, setKind] = useState('trend');
  const [forms, setForms] = useState(DEFAULTS);
  const [name, setName] = useState('');
  const [insight, setInsight] = useState(null);
  const [saved, setSaved] = useState([]);
  // The project's cohorts, for cohort filters (none listed: the filters offer no cohort),
  // asked once the form has a filter row, so that opening the builder costs no request more.
  const [cohorts, setCohorts] = useState([]);
  const [cohortsAsked, setCohortsAsked] = useState(false);
  const [error, setError] = useState(null);
  const [note, setNote] = useState('');
  const area = useRef(null);
  const timezone = user.team?.timezone ?? 'UTC';
  const form = forms[kind];
  const setField = (field, value) => setForms((old) => ({ ...old, [kind]: { ...old[kind], [field]: value } }));
  const loadSaved = () => api(`${project('insights')}?limit=50`).then((r) => setSaved(r.results), setError);
  useEffect(() => { loadSaved(); }, []);
  const filtering = (form.filters?.length ?? 0) > 0 || (form.series ?? []).some((x) => x.filters.length > 0);
  useEffect(() => {
    if (!filtering || cohortsAsked) return;
    setCohortsAsked(true);
    api(`${project('cohorts')}?limit=200`).then((r) => setCohorts((r.results ?? []).filter((c) => !c.deleted)), () => setCohorts([]));
  }, [filtering]);

  // A saved insight: its form, its name and its result (calculated when stale).
  useEffect(() => {
    // Back to a new insight: the saved one's name does not carry over.
    if (!args[0]) {
      setName('');
      return;
    }
    prefetchDrawing();
    setError(null);
    api(`${project(`insights/${encodeURIComponent(args[0])}`)}?refresh=blocking`).then((i) => {
      const filled = formOf(i.query);
      if (!filled) throw new Error('This insight is of a kind the builder does not show.');
      setKind(filled[0]);
      setForms((old) => ({ ...old, [filled[0]]: filled[1] }));
      setName(i.name ?? '');
      setInsight({ kind: filled[0], name: i.name || i.derived_name || defaultName(...filled), query: i.query, result: i.result, columns: i.columns, types: i.types, timezone: i.timezone ?? timezone });
    }).catch(setError);
  }, [args[0]]);

  const run = async (e) => {
    e.preventDefault();
    const next = kind === 'funnel' ? { ...form, steps: form.steps.map((step) => step.trim()) } : form;
    setError(null);
    setNote('');
    try {
      const source = QUERIES[kind](next);
      const answer = await api(project('query'), { method: 'POST', body: { query: source } });
      const query = kind === 'hogql' ? { kind: 'DataTableNode', source } : { kind: 'InsightVizNode', source };
      setInsight({ kind, name: name.trim() || defaultName(kind, next), query, result: answer.results, columns: answer.columns, types: answer.types, timezone });
    } catch (err) {
      setInsight(null);
      setError(err);
      // A HogQL syntax error puts the cursor where the parser stopped.
      const at = kind === 'hogql' ? errorPosition(next.text, err) : null;
      if (at && area.current) {
        area.current.focus();
        area.current.setSelectionRange(at.offset, at.offset + 1);
      }
    }
  };
  const save = async () => {
    try {
      const stored = await api(project('insights'), { method: 'POST', body: { name: insight.name, query: insight.query } });
      setNote(`Saved as insight ${stored.short_id ?? stored.id}.`);
      loadSaved();
    } catch (err) {
      setError(err);
    }
  };
  // Another kind is another insight: the name typed or opened for this one does not carry over.
  const pick = (k) => { setKind(k); setName(''); setInsight(null); setError(null); setNote(''); };
  const button = { trend: 'Show trend', funnel: 'Show funnel', retention: 'Show retention', hogql: 'Run query' }[kind];
  return html`
    <h1>Insights</h1>
    ${args[0] && html`<p><a href="#/insights">← New insight</a></p>`}
    <fieldset class="kinds">
      <legend>Kind of insight</legend>
      ${KINDS.map(([k, label]) => html`
        <label class="kind"><input type="radio" name="kind" value=${k} checked=${kind === k} onChange=${() => pick(k)} /> ${label}</label>`)}
    </fieldset>
    <form class="filters" onSubmit=${run} aria-label=${KINDS.find(([k]) => k === kind)[1]} key=${`${kind}-${args[0] ?? ''}`}>
      ${kind === 'trend' && html`<${TrendFields} form=${form} setField=${setField} cohorts=${cohorts} />`}
      ${kind === 'funnel' && html`<${FunnelFields} form=${form} setField=${setField} cohorts=${cohorts} />`}
      ${kind === 'retention' && html`<${RetentionFields} form=${form} setField=${setField} />`}
      ${kind === 'hogql' && html`<${HogQLFields} form=${form} setField=${setField} error=${error} area=${area} />`}
      <${Field} id="i-name" label="Name"><input id="i-name" value=${name} onInput=${(e) => setName(e.currentTarget.value)} placeholder="optional" /><//>
      <button type="submit">${button}</button>
    </form>
    <${ErrorNote} error=${error} />
    ${insight && insight.kind === kind && html`
      <p><button type="button" onClick=${save}>Save insight</button> <span role="status">${note}</span></p>
      <${Shown} kind=${kind} insight=${insight} />`}
    <h2>Saved insights</h2>
    ${saved.length === 0 ? html`<p class="empty">None yet.</p>` : html`<ul>${saved.map((i) => html`<li key=${i.id}><a href=${`#/insights/${i.id}`}>${i.name || i.derived_name || i.short_id}</a></li>`)}</ul>`}`;
}
