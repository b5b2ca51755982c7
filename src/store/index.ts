// Public face of the store: how a domain declares its tables, and how a data dir's
// environments are opened with every domain's declarations.
export { plainMaps, table, type Declarations, type Environment, type Table, type TableOptions, type Tables } from './table.js';
export { DataDirError, openStore, type Environments, type OpenStore, type StoreOf } from './env.js';
export { releaseEncodeBuffer } from './encode-buffer.js';
export { projectRows } from './project-rows.js';
export { withPrefix } from './prefix.js';
