// A dashboard's filters over one insight's query (pure): PostHog's DashboardFilter
// {date_from, date_to, properties, breakdown_filter} put on the query's source (a HogQL
// query's in its `filters`), and the dashboard's variables on a HogQL query's. A tile's own
// non-empty filters_overrides replace the dashboard's for that tile.
type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function effectiveFilters(dashboard: Json, tileOverrides: Json): Json {
  return Object.keys(tileOverrides).length > 0 ? tileOverrides : dashboard;
}

// A HogQL query takes the dashboard's date range and properties in its own `filters` (what
// its {filters} applies), as PostHog's apply_dashboard_filters puts them there.
function withHogQLFilters(source: Json, filters: Json): Json {
  const own = isRecord(source.filters) ? source.filters : {};
  const out: Json = { ...own };
  const { date_from: from, date_to: to } = filters;
  if ((typeof from === 'string' && from !== '') || (typeof to === 'string' && to !== '')) {
    out.dateRange = { ...(isRecord(own.dateRange) ? own.dateRange : {}), date_from: from ?? null, date_to: to ?? null };
  }
  if (Array.isArray(filters.properties) && filters.properties.length > 0) {
    const mine = own.properties;
    out.properties = Array.isArray(mine) ? [...mine, ...filters.properties]
      : isRecord(mine) ? { type: 'AND', values: [mine, { type: 'AND', values: filters.properties }] } : filters.properties;
  }
  return Object.keys(out).length > 0 ? { ...source, filters: out } : source;
}

function withFilters(source: Json, filters: Json): Json {
  if (source.kind === 'HogQLQuery') return withHogQLFilters(source, filters);
  const out: Json = { ...source };
  const from = filters.date_from;
  const to = filters.date_to;
  if (source.kind === 'EventsQuery') {
    if (typeof from === 'string' && from !== '') out.after = from;
    if (typeof to === 'string' && to !== '') out.before = to;
  } else if ((typeof from === 'string' && from !== '') || (typeof to === 'string' && to !== '')) {
    out.dateRange = { ...(isRecord(source.dateRange) ? source.dateRange : {}), date_from: from ?? null, date_to: to ?? null, ...(filters.explicitDate !== undefined ? { explicitDate: filters.explicitDate } : {}) };
  }
  if (Array.isArray(filters.properties) && filters.properties.length > 0) {
    const own = source.properties;
    if (Array.isArray(own)) out.properties = [...own, ...filters.properties];
    else if (isRecord(own) && Array.isArray(own.values)) {
      out.properties = { type: 'AND', values: [own, { type: 'AND', values: filters.properties }] };
    } else out.properties = filters.properties;
  }
  if (isRecord(filters.breakdown_filter) && source.kind !== 'EventsQuery') out.breakdownFilter = filters.breakdown_filter;
  return out;
}

function withVariables(source: Json, variables: Json): Json {
  if (source.kind !== 'HogQLQuery' || Object.keys(variables).length === 0) return source;
  const own = isRecord(source.variables) ? source.variables : {};
  const merged: Json = { ...own };
  for (const [id, value] of Object.entries(variables)) merged[id] = isRecord(own[id]) && isRecord(value) ? { ...own[id], ...value } : value;
  return { ...source, variables: merged };
}

// The insight's query as the tile shows it (its wrapper kept: InsightVizNode, DataTableNode).
export function applyDashboard(query: Json | null, filters: Json, variables: Json): Json | null {
  if (!query) return null;
  const apply = (source: Json) => withVariables(withFilters(source, filters), variables);
  return isRecord(query.source) ? { ...query, source: apply(query.source) } : apply(query);
}
