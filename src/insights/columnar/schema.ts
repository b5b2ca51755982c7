// The columnar store's tables. Events keep the fields every query reads as columns, the
// hot `$` properties (planner/properties.ts HOT_COLUMNS) as columns of their own, and the
// whole property bag as JSON. Persons are the current state: their properties, creation
// time and whether they are identified, and which person each distinct id belongs to now (a
// merge moves events: columnar/loader.ts). Groups are the current state of each group
// ($groupidentify): its type's index, key, creation time and properties.
import { HOT_COLUMNS } from '../planner/properties.js';

export const HOT = [...HOT_COLUMNS].map(([property, column]) => ({ property, column }));

export const SCHEMA_VERSION = 1;

export const DDL = [
  `CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS events (
    project INTEGER NOT NULL,
    uuid UUID NOT NULL,
    event VARCHAR NOT NULL,
    distinct_id VARCHAR NOT NULL,
    person_id UUID NOT NULL,
    timestamp TIMESTAMPTZ NOT NULL,
    ${HOT.map((h) => `${h.column} VARCHAR`).join(',\n    ')},
    properties JSON NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS persons (
    project INTEGER NOT NULL,
    id UUID NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    properties JSON NOT NULL,
    is_identified BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (project, id)
  )`,
  // A store created before persons had it: its persons read as not identified until they change.
  `ALTER TABLE persons ADD COLUMN IF NOT EXISTS is_identified BOOLEAN DEFAULT FALSE`,
  `CREATE TABLE IF NOT EXISTS groups (
    project INTEGER NOT NULL,
    type_index INTEGER NOT NULL,
    key VARCHAR NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    properties JSON NOT NULL,
    PRIMARY KEY (project, type_index, key)
  )`,
  `CREATE TABLE IF NOT EXISTS person_distinct_ids (
    project INTEGER NOT NULL,
    distinct_id VARCHAR NOT NULL,
    person_id UUID NOT NULL,
    PRIMARY KEY (project, distinct_id)
  )`,
  // name → last log sequence loaded, moved in the same transaction as the rows it covers.
  `CREATE TABLE IF NOT EXISTS positions (name VARCHAR PRIMARY KEY, seq BIGINT NOT NULL)`,
];
