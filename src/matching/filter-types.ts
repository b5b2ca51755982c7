// PostHog's property filter types that name a cohort (its id in `value`), wherever filters
// are read: hog function filters, insights, the destinations API.
export const COHORT_FILTER_TYPES: ReadonlySet<string> = new Set(['cohort', 'static-cohort', 'precalculated-cohort', 'dynamic-cohort']);
