// The web app's files, as a fixed table built at start: each URL names one file, so no
// path a client sends can reach another (no traversal: there is nothing to resolve).
// Libraries come from node_modules under URLs with their version; the app's own code (web/),
// the chart option builder compiled from src/exports/chart and the dashboard grid from
// src/exports/dashboard/layout (each with its closure of relative imports: the very modules
// the PNG exports run) under /app/v/<hash of them all>/, so that every file is cached for a
// year and a load asks for none of them again: only the page (revalidated by ETag) names the
// version, and a new version is new URLs. Relative imports between the app's own files keep
// working, as they all move together.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
  cache: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

// The compiled module runs from dist/src/app/: three levels up is the repository.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const require = createRequire(import.meta.url);

export function staticFile(body: Buffer, type: string, cache: string): StaticFile {
  return { body, type, cache, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

function fileAt(path: string, cache: string): StaticFile {
  const type = TYPES[extname(path)];
  if (!type) throw new Error(`no content type for ${path}`);
  return staticFile(readFileSync(path), type, cache);
}

// A package's file under /app/vendor/NAME@VERSION/, and the URL it got.
function vendor(files: Map<string, StaticFile>, name: string, file: string): string {
  const { dir, version } = packageDir(name);
  const url = `/app/vendor/${name}@${version}/${file.split('/').pop()}`;
  files.set(url, fileAt(join(dir, file), IMMUTABLE));
  return url;
}

// A package's folder and version: up from its main file to its package.json (not every
// package exports ./package.json).
function packageDir(name: string): { dir: string; version: string } {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (pkg.name === name) return { dir, version: pkg.version };
    } catch { /* no package.json here: one up */ }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${name} above ${require.resolve(name)}`);
    dir = up;
  }
}

// A compiled module and every module it imports relatively, as dist/… of the app's own files.
// A bare import (a package, node:…) would not load in a browser: refused here, at start.
function moduleClosure(own: Map<string, StaticFile>, entry: string): string {
  const pending = [resolve(DIST, entry)];
  while (pending.length > 0) {
    const path = pending.pop()!;
    const name = `dist/${relative(DIST, path).split('\\').join('/')}`;
    if (own.has(name)) continue;
    const file = fileAt(path, IMMUTABLE);
    own.set(name, file);
    for (const m of file.body.toString('utf8').matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gm)) {
      if (!m[1].startsWith('.')) throw new Error(`${name} imports ${m[1]}: the browser cannot load it`);
      pending.push(resolve(dirname(path), m[1]));
    }
  }
  return `dist/${entry}`;
}

export interface AppFiles {
  files: Map<string, StaticFile>;
  // Bare names the app imports → their URLs (the page's import map).
  imports: Record<string, string>;
  // The modules every load needs, named up front so the browser fetches them at once rather
  // than import by import: the entry's static import graph (./page.ts). ECharts and the chart
  // drawing are imported dynamically when a chart is first drawn (web/chart.js), so they are
  // not in it.
  preload: string[];
  // The app's entry module and style sheet.
  entry: string;
  style: string;
}

// A module's static imports: `import … from '…'`, `export … from '…'` and `import '…'`, as
// written in the app's own files (one a statement; not `import(…)`, which loads when asked).
const OWN_IMPORT = /^(?:(?:import|export)\s[^;]*?\sfrom\s*|import\s*)(['"])([^'"]+)\1/gm;
// A library's file is minified (`import{…}from"preact"`): only the bare names of the import
// map are looked for there, which are all a library file may import in the browser anyway.
const VENDOR_IMPORT = /\bfrom\s*(['"])([^'"./][^'"]*)\1/g;

// The URLs a load of `entry` fetches before it runs: its static imports, theirs, and so on,
// bare names through the import map and relative ones against the importing URL. A name the
// map lacks, or a URL not served, stops the start (the browser could not load it either).
function staticGraph(files: Map<string, StaticFile>, imports: Record<string, string>, entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const url = pending.pop()!;
    if (seen.has(url)) continue;
    const file = files.get(url);
    if (!file) throw new Error(`${url} is imported by the app but not served`);
    seen.add(url);
    const vendor = url.startsWith('/app/vendor/');
    for (const m of file.body.toString('utf8').matchAll(vendor ? VENDOR_IMPORT : OWN_IMPORT)) {
      const name = m[2];
      if (name.startsWith('.')) pending.push(new URL(name, `http://app${url}`).pathname);
      else if (imports[name] !== undefined) pending.push(imports[name]);
      else if (!vendor) throw new Error(`${url} imports ${name}, which the import map does not name`);
    }
  }
  return [...seen];
}

export function appFiles(): AppFiles {
  const files = new Map<string, StaticFile>();
  // The app's own files by their name under the version (web/…, dist/…).
  const own = new Map<string, StaticFile>();
  const chart = moduleClosure(own, 'src/exports/chart/build.js');
  // Where a dashboard's tiles go: the grid the PNG/PDF exports lay them out on.
  const layout = moduleClosure(own, 'src/exports/dashboard/layout.js');
  const web = join(ROOT, 'web');
  for (const name of readdirSync(web)) own.set(`web/${name}`, fileAt(join(web, name), IMMUTABLE));
  const version = createHash('sha256').update([...own].map(([name, f]) => `${name} ${f.etag}`).sort().join('\n')).digest('base64url').slice(0, 16);
  const at = (name: string) => `/app/v/${version}/${name}`;
  for (const [name, file] of own) files.set(at(name), file);
  const imports: Record<string, string> = {
    preact: vendor(files, 'preact', 'dist/preact.mjs'),
    'preact/hooks': vendor(files, 'preact', 'hooks/dist/hooks.mjs'),
    htm: vendor(files, 'htm', 'dist/htm.mjs'),
    echarts: vendor(files, 'echarts', 'dist/echarts.esm.min.mjs'),
    'hedgerow/chart': at(chart),
    'hedgerow/layout': at(layout),
  };
  const entry = at('web/main.js');
  // In the table's order (the page named them so before the graph was computed).
  const graph = new Set(staticGraph(files, imports, entry));
  return { files, imports, preload: [...files.keys()].filter((url) => graph.has(url)), entry, style: at('web/app.css') };
}
