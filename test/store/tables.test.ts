// Each domain declares its tables (src/*/tables.ts) and the store opens the list of them
// (src/tables.ts). A data dir written before keeps opening only if every database keeps
// its name, its environment and the options its values were encoded with: those are
// written out here, as the store opened them when one file declared them all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, table, type Declarations } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { logTables } from '../../src/log/tables.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('tables per domain');

const plainMaps = { useRecords: false, variableMapSize: true };
// name the code reads it by → [database, environment, options]
const EXISTING: Record<string, [string, 'main' | 'log', object]> = {
  log: ['log', 'log', { encoding: 'binary' }],
  logCounts: ['log_counts', 'log', {}],
  positions: ['positions', 'main', {}],
  deadLetters: ['dead_letters', 'main', {}],
  eventRows: ['event_rows', 'main', plainMaps],
  eventTimes: ['event_times', 'main', plainMaps],
  personOnEventsProjects: ['person_on_events_projects', 'main', {}],
  legacyEvents: ['events', 'main', plainMaps],
  legacyEventUuids: ['event_uuids', 'main', {}],
  tenancy: ['tenancy', 'main', {}],
  flags: ['flags', 'main', {}],
  cohorts: ['cohorts', 'main', {}],
  cohortMembers: ['cohort_members', 'main', {}],
  flagState: ['flag_state', 'main', {}],
  quota: ['quota', 'main', {}],
  persons: ['persons', 'main', plainMaps],
  personDistinctIds: ['person_distinct_ids', 'main', plainMaps],
  personIds: ['person_ids', 'main', {}],
  personRedirects: ['person_redirects', 'main', {}],
  personSeq: ['person_seq', 'main', {}],
  groupTypes: ['group_types', 'main', {}],
  groups: ['groups', 'main', {}],
  hashKeyOverrides: ['hash_key_overrides', 'main', {}],
  ingestionWarnings: ['ingestion_warnings', 'main', {}],
  insights: ['insights', 'main', plainMaps],
  insightCache: ['insight_cache', 'main', plainMaps],
  hogFunctions: ['hog_functions', 'main', plainMaps],
  hogFunctionVersions: ['hog_function_versions', 'main', {}],
  exports: ['exports', 'main', plainMaps],
  dashboards: ['dashboards', 'main', plainMaps],
  dashboardTiles: ['dashboard_tiles', 'main', plainMaps],
  subscriptions: ['subscriptions', 'main', plainMaps],
  actions: ['actions', 'main', plainMaps],
  propertyDefinitions: ['property_definitions', 'main', plainMaps],
  eventDefinitions: ['event_definitions', 'main', plainMaps],
  eventProperties: ['event_properties', 'main', {}],
  definitionIds: ['definition_ids', 'main', {}],
};

s('every table of the list opens the database, environment and options existing data dirs were written with', () => {
  const declared: Record<string, [string, string, object]> = {};
  for (const declarations of tables) {
    for (const [name, t] of Object.entries(declarations)) {
      assert.not.ok(name in declared, `${name} declared once`);
      declared[name] = [t.name, t.env, { ...t.options }];
    }
  }
  assert.equal(declared, EXISTING);
});

s('the store opens every declared table under its name, in its environment', async () => {
  const dir = tempDir('hedgerow-tables-');
  try {
    const store = openStore(dir, tables);
    try {
      await store.root.transaction(() => store.positions.put('reader', 7));
      await store.logRoot.transaction(() => store.log.put(1, Buffer.from('record')));
      for (const name of Object.keys(EXISTING)) assert.ok((store as unknown as Record<string, unknown>)[name], name);
      assert.is(store.root.openDB({ name: 'positions' }).get('reader'), 7);
      assert.equal(store.logRoot.openDB({ name: 'log', encoding: 'binary' }).get(1), Buffer.from('record'));
    } finally {
      await store.close();
    }
    // A short-lived open of one domain's tables (a snapshot's copy, a CLI command) reads the same.
    const some = openStore(dir, [logTables]);
    try {
      assert.is(some.positions.get('reader'), 7);
      assert.is((some as unknown as Record<string, unknown>).eventRows, undefined);
    } finally {
      await some.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s('two tables under one name, or one database declared twice, are refused before the data dir is touched', async () => {
  const parent = tempDir('hedgerow-tables-');
  try {
    const dir = join(parent, 'data');
    const cases: [readonly Declarations[], RegExp][] = [
      [[logTables, { positions: table<number, string>('other_positions') }], /two tables are named positions/],
      [[logTables, { myPositions: table<number, string>('positions') }], /two tables open the database positions of the main environment/],
      [[{ root: table<number, string>('roots') }], /two tables are named root/],
    ];
    for (const [declared, message] of cases) {
      assert.throws(() => openStore(dir, declared), message);
      assert.not.ok(existsSync(dir));
    }
    // The same database name in the other environment is another database.
    const store = openStore(dir, [logTables, { mainLog: table<number, number>('log') }]);
    await store.close();
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

s.run();
