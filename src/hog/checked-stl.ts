// The VM checks its memory limit when a value is pushed on its stack: after the value is
// made. A library function making one large value (range(100000000), a string printed
// from a huge array, jsonParse of a long text) allocates it all in one step before that
// check, and V8 cannot stop a single allocation larger than what is left of a worker's
// heap: it aborts the whole process, not the worker (docs/decisions/0039). So each
// allocating function of the library is wrapped here: what it is about to make is
// measured (./allocation.ts) and refused, as the VM refuses, before it is made.
//
// A call is refused when (1) its result would cost more than the program's memory limit
// by the VM's own measure, or (2) building it would take more heap than four times that
// limit, or than the thread has left beside a reserve. (2) keeps a program whose earlier
// values the VM undercounts (a Map costs 8 bytes to the VM and about 190 to V8) from
// taking the last of the heap in one allocation: the heap then fills only in small steps,
// which V8 answers by stopping the worker alone.
import v8 from 'node:v8';
import { performance } from 'node:perf_hooks';
import type { ExecOptions } from './vm.js';
import { HogVMException, STL } from './vm.js';
import {
  copyHeap, hasNonAscii, jsonTextCost, occurrences, printCost, UNIT, urlEncodedLength, vmCost, type Cost,
} from './allocation.js';

/** The VM's memory limit when the caller sets none (@posthog/hogvm's DEFAULT_MAX_MEMORY). */
export const DEFAULT_MEMORY_LIMIT = 64 * 1024 * 1024;
// Heap kept free for the VM's own work after a call (its state, the stack's copies).
const HEAP_RESERVE = 32 * 1024 * 1024;
// Calls needing less than this skip the heap statistics (a few microseconds each).
const HEAP_CHECK_FROM = 1024 * 1024;

type StlFn = (args: unknown[], name: string, options?: ExecOptions) => unknown;

export function memoryLimitOf(options: ExecOptions | undefined): number {
  const limit = options?.memoryLimit;
  return typeof limit === 'number' && limit > 0 ? limit : DEFAULT_MEMORY_LIMIT;
}

// The running slice's time budget (set by the host around each exec): the VM looks at the
// clock every 32 operations only, and one operation on a large value can take a second.
let deadline = Infinity;
let budgetMs = 0;

/** Sets (or clears, with null) when the running program's synchronous time runs out. */
export function limitTime(until: number | null, timeoutMs: number): void {
  deadline = until ?? Infinity;
  budgetMs = timeoutMs;
}

function ensureTime(): void {
  if (performance.now() > deadline) throw new HogVMException(`Execution timed out after ${budgetMs / 1000} seconds.`);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Throws the VM's memory error unless `cost` fits the program's limit and the thread's heap. */
export function ensureRoom(cost: Cost, options: ExecOptions | undefined): void {
  const limit = memoryLimitOf(options);
  if (cost.vm > limit) throw new HogVMException(`Memory limit of ${limit} bytes exceeded. Tried to allocate ${cost.vm} bytes.`);
  if (cost.heap < HEAP_CHECK_FROM) return;
  const heap = v8.getHeapStatistics();
  const left = heap.heap_size_limit - heap.used_heap_size - HEAP_RESERVE;
  if (cost.heap > 4 * limit || cost.heap > left) {
    throw new HogVMException(
      `Memory limit of ${limit} bytes exceeded. Tried to allocate about ${mb(cost.heap)} MB of heap (${mb(Math.max(0, left))} MB left).`,
    );
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** Array.from({length}) reads its length as ToLength does: NaN is 0, fractions are cut. */
function rangeLength(args: unknown[]): number {
  const raw = args.length === 1 ? Number(args[0]) : (args[1] as number) - (args[0] as number);
  const n = Math.trunc(Number(raw));
  if (Number.isNaN(n) || n <= 0) return 0;
  return n;
}

// range() builds its array by pushing: Array.from({length}) makes an array longer than
// 100,000 in dictionary mode, about five times the heap of a packed one.
const checkedRange: StlFn = (args, _name, options) => {
  ensureTime();
  const n = rangeLength(args);
  ensureRoom({ vm: UNIT + n * UNIT, heap: 2 * n * UNIT }, options);
  const out: unknown[] = [];
  if (args.length === 1) for (let i = 0; i < n; i++) out.push(i);
  else for (let i = 0; i < n; i++) out.push((args[0] as number) + i);
  return out;
};

// String(x) of an element as Array.prototype.join writes it, bounded.
function joinedLength(arr: unknown[], sepLength: number, stopAt: number): number {
  let n = Math.max(0, arr.length - 1) * sepLength;
  for (let i = 0; i < arr.length && n <= stopAt; i++) {
    const v = arr[i];
    if (isString(v)) n += v.length;
    else if (v === null || v === undefined) continue;
    else if (Array.isArray(v)) n += joinedLength(v, 1, stopAt - n);
    else n += 24;
  }
  return n;
}

const strings = (cost: (stopAt: number) => number) => (stopAt: number): Cost => {
  const chars = cost(stopAt);
  return { vm: UNIT + chars, heap: 2 * chars };
};

// How each allocating function measures what it is about to make, from its arguments
// (null: nothing large). `stopAt` bounds the measuring itself.
type Measure = (args: unknown[], stopAt: number) => Cost | null;

const printed = (values: unknown[], stopAt: number): Cost => {
  let chars = 0;
  let heap = 0;
  for (const v of values) {
    if (v === null || v === undefined) continue;
    const c = printCost(v, stopAt);
    chars += c.chars;
    heap += c.heap;
  }
  return { vm: UNIT + chars, heap: heap + 2 * chars };
};

const parsedJson: Measure = ([text]) => (isString(text) ? jsonTextCost(text) : null);

const copiedArray: Measure = ([arr], stopAt) =>
  Array.isArray(arr) ? { vm: vmCost(arr, stopAt), heap: 2 * (arr.length + 1) * UNIT } : null;

// Scanning an array visits every index up to its length, holes included.
const scannedArray: Measure = ([arr]) => (Array.isArray(arr) ? { vm: arr.length * UNIT, heap: 0 } : null);

const replaced = (once: boolean): Measure => ([text, from, to], stopAt) => {
  if (!isString(text) || !isString(from) || !isString(to)) return null;
  const found = occurrences(text, from, once ? 1 : Infinity);
  // `$&`, `` $` `` and `$'` in the replacement repeat the match or the text around it.
  const dollars = occurrences(to, '$');
  return strings(() => text.length + found * (to.length + dollars * text.length))(stopAt);
};

const MEASURES = new Map<string, Measure>(Object.entries({
  concat: (args: unknown[], stopAt: number) => printed(args, stopAt),
  jsonStringify: ([value, indent], stopAt) => {
    const c = printCost(value, stopAt, true, 6);
    const pad = typeof indent === 'number' ? Math.min(10, Math.max(0, Math.trunc(indent))) : isString(indent) ? Math.min(10, indent.length) : 0;
    const chars = c.chars + (pad > 0 ? c.nodes * (pad * c.depth + 1) : 0);
    return { vm: UNIT + chars, heap: c.heap + copyHeap(value, stopAt) + 2 * chars };
  },
  jsonParse: parsedJson,
  isValidJSON: parsedJson,
  JSONHas: parsedJson,
  JSONLength: parsedJson,
  JSONExtract: parsedJson,
  JSONExtractBool: parsedJson,
  JSONExtractArrayRaw: parsedJson,
  JSONExtractFloat: parsedJson,
  JSONExtractInt: parsedJson,
  JSONExtractString: parsedJson,
  splitByString: ([sep, text, maxSplits]) => {
    if (!isString(sep) || !isString(text)) return null;
    let pieces = sep.length === 0 ? text.length : occurrences(text, sep) + 1;
    if (typeof maxSplits === 'number' && maxSplits >= 0) pieces = Math.min(pieces, maxSplits);
    return { vm: UNIT + pieces * UNIT + text.length, heap: pieces * 6 * UNIT + text.length * 2 };
  },
  replaceAll: replaced(false),
  replaceOne: replaced(true),
  arrayStringConcat: ([arr, sep], stopAt) =>
    Array.isArray(arr) ? strings((s) => joinedLength(arr, sep === null || sep === undefined ? 0 : String(sep).length, s))(stopAt) : null,
  arrayPushBack: ([arr, item], stopAt) =>
    Array.isArray(arr) ? { vm: vmCost(arr, stopAt) + vmCost(item, stopAt), heap: 2 * (arr.length + 1) * UNIT } : null,
  arrayPushFront: ([arr, item], stopAt) =>
    Array.isArray(arr) ? { vm: vmCost(arr, stopAt) + vmCost(item, stopAt), heap: 2 * (arr.length + 1) * UNIT } : null,
  arraySort: copiedArray,
  arrayReverse: copiedArray,
  arrayReverseSort: copiedArray,
  keys: ([v]) => {
    const n = Array.isArray(v) ? v.length : v instanceof Map ? v.size : typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
    return { vm: UNIT + n * UNIT, heap: 2 * n * UNIT };
  },
  values: ([v], stopAt) => (typeof v === 'object' && v !== null ? { vm: vmCost(v, stopAt), heap: 2 * UNIT * (Array.isArray(v) ? v.length : v instanceof Map ? v.size : Object.keys(v).length) } : null),
  has: scannedArray,
  indexOf: scannedArray,
  base64Encode: ([text]) => {
    if (!isString(text)) return null;
    const bytes = hasNonAscii(text) ? 3 * text.length : text.length;
    const chars = Math.ceil(bytes / 3) * 4;
    return { vm: UNIT + chars, heap: bytes + 2 * chars };
  },
  encodeURLComponent: ([text], stopAt) => {
    if (!isString(text)) return null;
    return strings(() => (9 * text.length <= stopAt / 4 ? 9 * text.length : urlEncodedLength(text)))(stopAt);
  },
  upper: ([text], stopAt) => (isString(text) ? strings(() => (hasNonAscii(text) ? 3 : 1) * text.length)(stopAt) : null),
  lower: ([text], stopAt) => (isString(text) ? strings(() => (hasNonAscii(text) ? 3 : 1) * text.length)(stopAt) : null),
  // A string reversed is split into one-character strings first.
  reverse: ([text]) => (isString(text) ? { vm: UNIT + text.length, heap: 17 * text.length } : null),
  formatDateTime: ([, format]) => (isString(format) ? { vm: UNIT + 10 * format.length, heap: 20 * format.length } : null),
} satisfies Record<string, Measure>));
// Not in the literal above: an own toString there would shadow Object.prototype's.
MEASURES.set('toString', ([v], stopAt) => printed([v], stopAt));

let installed = false;

/** Replaces the library's allocating functions with checked ones, once per thread. */
export function installCheckedLibrary(): void {
  if (installed) return;
  installed = true;
  const library = STL as Record<string, { fn: StlFn }>;
  library.range.fn = checkedRange;
  for (const [name, measure] of MEASURES) {
    const entry = Object.hasOwn(library, name) ? library[name] : undefined;
    if (entry === undefined) throw new Error(`@posthog/hogvm has no ${name}() to check`);
    const original = entry.fn;
    entry.fn = (args, fnName, options) => {
      ensureTime();
      const cost = measure(args, 4 * memoryLimitOf(options));
      if (cost !== null) ensureRoom(cost, options);
      return original(args, fnName, options);
    };
  }
}
