// PostHog's paged table answer, as EventsQuery and ActorsQuery give it: a page of rows with
// their columns' names and types, and whether rows follow.
export interface PagedRows {
  results: unknown[][];
  columns: string[];
  types: string[];
  hasMore: boolean;
  limit: number;
  offset: number;
}

// Rows in a page when the query names no limit (PostHog's default).
export const DEFAULT_PAGE_ROWS = 100;
