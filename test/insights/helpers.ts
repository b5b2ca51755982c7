// A columnar store per test in a temporary directory, events and persons written by hand,
// and queries run at a fixed clock.
import { randomUUID } from 'node:crypto';
import type { Test } from 'uvu';
import { rmSync } from 'node:fs';
import { openColumnar, type Columnar } from '../../src/insights/columnar/database.js';
import { createLoader, type Loader } from '../../src/insights/columnar/loader.js';
import type { ColumnarEvent } from '../../src/insights/columnar/stage.js';
import { runQuery, type QueryResponse } from '../../src/insights/run.js';
import type { ResolvedAction } from '../../src/insights/planner/actions.js';
import type { ResolvedCohort } from '../../src/insights/planner/properties.js';
import { tempDir } from '../helpers/temp-dir.js';

export const PROJECT = 1;

export interface TestStore {
  db: Columnar;
  loader: Loader;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const dir = tempDir('insights');
  const db = await openColumnar({ dir, threads: 1 });
  return {
    db,
    loader: createLoader(db),
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh store for each test of the suite; `opened` receives it before the test. */
export function storePerTest(s: Test, opened: (store: TestStore) => void | Promise<void>): void {
  let store: TestStore;
  s.before.each(async () => {
    store = await openTestStore();
    await opened(store);
  });
  s.after.each(() => store.close());
}

/** One store for the whole suite. */
export function storePerSuite(s: Test, opened: (store: TestStore) => void | Promise<void>): void {
  let store: TestStore;
  s.before(async () => {
    store = await openTestStore();
    await opened(store);
  });
  s.after(() => store.close());
}

/** Person n's uuid. */
export function person(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** An event of person n (distinct id "user-n" unless given). */
export function ev(n: number, event: string, timestamp: string, properties: Record<string, unknown> = {}, distinctId = `user-${n}`): ColumnarEvent {
  return { project_id: PROJECT, uuid: randomUUID(), event, distinct_id: distinctId, person_id: person(n), timestamp, properties };
}

export interface At {
  now: string;
  timezone?: string;
  weekStart?: 0 | 1;
  testAccountFilters?: unknown[];
  pathCleaningFilters?: { regex: string; alias: string }[];
  actions?: Record<string, ResolvedAction>;
  cohorts?: Record<string, ResolvedCohort>;
}

export function run(store: TestStore, query: unknown, at: At): Promise<QueryResponse> {
  return runQuery(store.db, query, { projectId: PROJECT, timezone: at.timezone ?? 'UTC', weekStart: at.weekStart ?? 0, nowMs: Date.parse(at.now), testAccountFilters: at.testAccountFilters, pathCleaningFilters: at.pathCleaningFilters, actions: at.actions, cohorts: at.cohorts });
}
