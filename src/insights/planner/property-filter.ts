// One property filter as PostHog's queries write it (`{key, value, operator, type}`): its
// own file because both the filter compiler (./properties.ts) and the behavioural cohorts it
// calls (./cohort-behaviour.ts) read it.
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  type?: string;
}
