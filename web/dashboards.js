// Dashboards: the project's list and a form to make one; one dashboard with its tiles on
// the grid the PNG/PDF exports use (src/exports/dashboard/layout), each insight drawn by the
// exports' chart builder, text cards as text; refresh (recalculated whatever the cache
// holds), PNG and PDF exports through the exports API, adding a saved insight or a text,
// removing a tile, renaming, and a layout mode where tiles move and resize by buttons or by
// arrow keys on a focused tile (./tile-layout.js), saved to the tiles' `layouts`.
import { useEffect, useState } from 'preact/hooks';
import { gridBox, gridBoxes } from 'hedgerow/layout';
import { keyStep, layoutsOf, stepped } from './tile-layout.js';
import { api, project } from './api.js';
import { Chart, prefetchDrawing } from './chart.js';
import { ErrorNote, Field, html, when } from './ui.js';

const insightName = (i) => i.name || i.derived_name || 'Untitled insight';

const tileName = (tile) => (tile.text ? `Text: ${(tile.text.body ?? '').slice(0, 40)}` : tile.insight ? insightName(tile.insight) : 'Missing insight');

const TOOLS = [['left', 'Move left'], ['right', 'Move right'], ['up', 'Move up'], ['down', 'Move down'], ['narrower', 'Narrower'], ['wider', 'Wider'], ['shorter', 'Shorter'], ['taller', 'Taller']];

// In layout mode: the tile's buttons, its place in words, and its arrow keys.
function TileTools({ tile, box, onStep, onRemove }) {
  const name = tileName(tile);
  return html`
    <div class="tile-tools" role="group" aria-label=${`Layout of ${name}`}>
      ${TOOLS.map(([step, label]) => html`<button type="button" onClick=${() => onStep(step)}>${label}<span class="sr-only"> ${name}</span></button>`)}
      <button type="button" class="bad" onClick=${onRemove}>Remove<span class="sr-only"> ${name}</span></button>
      <span class="place">Column ${box.x + 1}, row ${box.y + 1}, ${box.w} wide, ${box.h} tall</span>
    </div>`;
}

function Tile({ tile, box, editing, onStep, onRemove }) {
  const style = `grid-column: ${box.x + 1} / span ${box.w}; grid-row: ${box.y + 1} / span ${box.h}`;
  // A focused tile moves with the arrow keys and resizes with Shift and the arrows.
  const keys = editing ? {
    tabIndex: 0, 'aria-describedby': 'layout-help',
    onKeyDown: (e) => {
      if (e.target !== e.currentTarget) return;
      const step = keyStep(e.key, e.shiftKey);
      if (step) { e.preventDefault(); onStep(step); }
    },
  } : {};
  const tools = editing && html`<${TileTools} tile=${tile} box=${box} onStep=${onStep} onRemove=${onRemove} />`;
  const cls = editing ? 'tile editing' : 'tile';
  if (tile.text) {
    return html`<section class=${`${cls} text-tile`} style=${style} aria-label=${tileName(tile)} ...${keys}>${tools}<p>${tile.text.body ?? ''}</p></section>`;
  }
  const insight = tile.insight;
  if (!insight) return html`<section class=${cls} style=${style} aria-label="Missing insight" ...${keys}>${tools}<p class="empty">This insight is gone.</p></section>`;
  const shown = { ...insight, name: insightName(insight) };
  return html`
    <section class=${cls} style=${style} aria-labelledby=${`tile-${tile.id}`} ...${keys}>
      <h2 id=${`tile-${tile.id}`}><a href=${`#/insights/${insight.id}`}>${shown.name}</a></h2>
      ${tools}
      ${insight.result == null ? html`<p class="empty">Not calculated yet: refresh.</p>` : html`<${Chart} insight=${shown} scaled=${true} />`}
    </section>`;
}

function Rename({ dashboard, onDone }) {
  const [name, setName] = useState(dashboard.name ?? '');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    try {
      await api(project(`dashboards/${dashboard.id}`), { method: 'PATCH', body: { name: name.trim() } });
      onDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return html`
    <form class="filters" onSubmit=${submit} aria-label="Rename dashboard">
      <${Field} id="d-rename" label="Dashboard name"><input id="d-rename" required value=${name} onInput=${(e) => setName(e.currentTarget.value)} /><//>
      <button type="submit">Save name</button>
      <button type="button" onClick=${() => onDone(false)}>Cancel</button>
      <${ErrorNote} error=${error} />
    </form>`;
}

// An export of the dashboard: created, then asked after until its file exists.
async function exported(dashboardId, format) {
  let asset = await api(project('exports'), { method: 'POST', body: { export_format: format, dashboard: dashboardId } });
  for (let tries = 0; !asset.has_content && !asset.exception && tries < 120; tries++) {
    await new Promise((r) => setTimeout(r, 500));
    asset = await api(project(`exports/${asset.id}`));
  }
  if (asset.exception) throw new Error(`The export failed: ${asset.exception}`);
  if (!asset.has_content) throw new Error('The export is taking too long; try again later.');
  return asset;
}

function ExportButtons({ dashboard }) {
  const [files, setFiles] = useState([]);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState(null);
  const run = async (format, label) => {
    setBusy(label);
    setError(null);
    try {
      const asset = await exported(dashboard.id, format);
      setFiles((f) => [...f.filter((x) => x.label !== label), { label, href: project(`exports/${asset.id}/content`), name: asset.filename }]);
    } catch (err) {
      setError(err);
    }
    setBusy('');
  };
  return html`
    <span class="exports">
      <button type="button" disabled=${busy !== ''} onClick=${() => run('image/png', 'PNG')}>Export PNG</button>
      <button type="button" disabled=${busy !== ''} onClick=${() => run('application/pdf', 'PDF')}>Export PDF</button>
      <span role="status">${busy && `Exporting ${busy}…`}</span>
      ${files.map((f) => html`<a key=${f.label} href=${f.href} download=${f.name}>Download ${f.label}</a>`)}
      <${ErrorNote} error=${error} />
    </span>`;
}

function AddToDashboard({ dashboard, onAdded }) {
  const [insights, setInsights] = useState([]);
  const [error, setError] = useState(null);
  useEffect(() => { api(`${project('insights')}?limit=200`).then((r) => setInsights(r.results), setError); }, []);
  const onBoard = new Set(dashboard.tiles.map((t) => t.insight?.id).filter(Boolean));
  const addInsight = async (e) => {
    e.preventDefault();
    const id = Number(new FormData(e.currentTarget).get('insight'));
    const insight = insights.find((i) => i.id === id);
    if (!insight) return;
    try {
      // An insight joins a dashboard through its own `dashboards` list, as in PostHog.
      await api(project(`insights/${id}`), { method: 'PATCH', body: { dashboards: [...(insight.dashboards ?? []), dashboard.id] } });
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  const addText = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const body = String(new FormData(form).get('text') ?? '').trim();
    if (!body) return;
    try {
      await api(project(`dashboards/${dashboard.id}`), { method: 'PATCH', body: { tiles: [{ text: { body } }] } });
      form.reset();
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  const choices = insights.filter((i) => !onBoard.has(i.id));
  return html`
    <div class="add-tiles">
      <form class="filters" onSubmit=${addInsight} aria-label="Add an insight tile">
        <${Field} id="d-insight" label="Saved insight">
          <select id="d-insight" name="insight">${choices.map((i) => html`<option key=${i.id} value=${i.id}>${insightName(i)}</option>`)}</select><//>
        <button type="submit" disabled=${choices.length === 0}>Add insight</button>
      </form>
      <form class="filters" onSubmit=${addText} aria-label="Add a text tile">
        <${Field} id="d-text" label="Text card"><textarea id="d-text" name="text" rows="2" cols="40"></textarea><//>
        <button type="submit">Add text</button>
      </form>
      <${ErrorNote} error=${error} />
    </div>`;
}

function Dashboard({ id }) {
  const [dashboard, setDashboard] = useState(null);
  const [error, setError] = useState(null);
  const [loading, setLoading] = useState(false);
  // `blocking`: cached results while fresh, else calculated; Refresh forces a calculation.
  const load = async (refresh = 'blocking') => {
    setLoading(true);
    try {
      setDashboard(await api(`${project(`dashboards/${encodeURIComponent(id)}`)}?refresh=${refresh}`));
      setError(null);
    } catch (err) {
      setError(err);
    }
    setLoading(false);
  };
  // Layout mode: the boxes as moved so far, saved or dropped together.
  const [moved, setMoved] = useState(null);
  const [renaming, setRenaming] = useState(false);
  useEffect(() => { prefetchDrawing(); load(); }, [id]);
  if (!dashboard) return html`<p><a href="#/dashboards">← All dashboards</a></p>${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading…</p>`}`;
  const saved = gridBoxes(dashboard.tiles.map((t) => ({ layout: gridBox(t.layouts ?? {}) })));
  const boxes = moved ?? saved;
  const editing = moved !== null;
  const computed = dashboard.tiles.map((t) => t.last_refresh).filter(Boolean).sort().pop();
  const write = async (tiles) => {
    try {
      await api(project(`dashboards/${dashboard.id}`), { method: 'PATCH', body: { tiles } });
      await load();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  const saveLayout = async () => {
    if (await write(dashboard.tiles.map((t, i) => ({ id: t.id, layouts: layoutsOf(t, boxes[i]) })))) setMoved(null);
  };
  // A removed tile leaves the layout being edited too.
  const remove = async (i) => {
    const tile = dashboard.tiles[i];
    if (await write([{ id: tile.id, deleted: true }]) && moved) setMoved(moved.filter((_, j) => j !== i));
  };
  return html`
    <p><a href="#/dashboards">← All dashboards</a></p>
    ${renaming ? html`<${Rename} dashboard=${dashboard} onDone=${(changed) => { setRenaming(false); if (changed) load(); }} />` : html`
      <div class="title-row"><h1>${dashboard.name || 'Untitled dashboard'}</h1><button type="button" onClick=${() => setRenaming(true)}>Rename</button></div>`}
    ${dashboard.description && html`<p>${dashboard.description}</p>`}
    <div class="toolbar">
      <button type="button" onClick=${() => load('force_blocking')} disabled=${loading}>Refresh</button>
      <span role="status">${loading ? 'Calculating…' : computed ? `Computed ${when(computed)}` : ''}</span>
      <${ExportButtons} dashboard=${dashboard} />
      ${editing ? html`
        <button type="button" onClick=${saveLayout}>Save layout</button>
        <button type="button" onClick=${() => setMoved(null)}>Cancel layout</button>` : html`
        <button type="button" disabled=${dashboard.tiles.length === 0} onClick=${() => setMoved(saved)}>Edit layout</button>`}
    </div>
    ${editing && html`<p id="layout-help" class="empty">Move a tile with its buttons, or focus it and use the arrow keys; Shift with the arrows resizes it.</p>`}
    <${ErrorNote} error=${error} />
    ${dashboard.tiles.length === 0 ? html`<p class="empty">No tiles yet: add a saved insight or a text below.</p>` : html`
      <div class="dashboard-grid">${dashboard.tiles.map((t, i) => html`
        <${Tile} key=${t.id} tile=${t} box=${boxes[i]} editing=${editing}
          onStep=${(step) => setMoved(stepped(boxes, i, step))} onRemove=${() => remove(i)} />`)}</div>`}
    <h2>Add to this dashboard</h2>
    <${AddToDashboard} dashboard=${dashboard} onAdded=${() => load()} />`;
}

function DashboardList() {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { api(`${project('dashboards')}?limit=200`).then((r) => setList(r.results), setError); }, []);
  const create = async (e) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    try {
      const made = await api(project('dashboards'), { method: 'POST', body: { name: String(form.get('name') ?? ''), description: String(form.get('description') ?? '') } });
      location.hash = `#/dashboards/${made.id}`;
    } catch (err) {
      setError(err);
    }
  };
  return html`
    <h1>Dashboards</h1>
    <${ErrorNote} error=${error} />
    <form class="filters" onSubmit=${create} aria-label="New dashboard">
      <${Field} id="d-name" label="Name"><input id="d-name" name="name" required /><//>
      <${Field} id="d-description" label="Description"><input id="d-description" name="description" /><//>
      <button type="submit">Create dashboard</button>
    </form>
    ${list === null ? html`<p>Loading…</p>` : list.length === 0 ? html`<p class="empty">No dashboards yet.</p>` : html`
      <table>
        <caption class="sr-only">Dashboards</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Created</th></tr></thead>
        <tbody>${list.map((d) => html`
          <tr key=${d.id}>
            <td><a href=${`#/dashboards/${d.id}`}>${d.name || 'Untitled dashboard'}${d.pinned ? ' (pinned)' : ''}</a></td>
            <td>${d.description}</td>
            <td>${when(d.created_at)}</td>
          </tr>`)}</tbody>
      </table>`}`;
}

export function DashboardsPage({ args }) {
  return args[0] ? html`<${Dashboard} id=${args[0]} />` : html`<${DashboardList} />`;
}
