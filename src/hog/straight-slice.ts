// A program's first slice without the VM, when it is forward-only code that reads globals,
// locals and properties, builds dicts and arrays, tests them (constants, NOT, AND, OR, EQ,
// NOT_EQ on plain scalars, LIKE and ILIKE on strings, forward jumps, the pure calls of
// ./straight-stl.ts) and ends at a
// call of an async host function: the HTTP webhook's `fetch(inputs.url, {'method': …,
// 'body': inputs.body})` and the checks that open many destination templates.
// @posthog/hogvm answers such a slice by converting every global it reads (with the default
// webhook body, the whole event and person) into its own Maps, pricing each pushed value by
// walking it (the dict around the body walks the body again), converting the call's
// arguments and the stack back to plain values, after which the bound on what leaves the VM
// (./host.ts) walked them twice more: most of a delivery's program time and much of its
// garbage (bench/RESULTS.md, issue 26). Here the globals are read in place and each read
// value is walked once, for both the VM's price and the heap a copy of it takes.
// The answer is the VM's: the same ops count, the same memory figures (its cost model:
// 8 bytes a value plus the characters of strings and keys), the same state to resume (the
// stack and arguments as plain values, which the VM converts again when it resumes; they
// are the globals' own objects rather than copies, and nothing writes to them). Anything
// else — another op, a backward jump, a global that is not there, a comparison of
// dicts or arrays, a property read with a key other than a string (or an array index), a value the VM would convert differently
// (a Map, a class instance, a date marker, a hole, nesting past MAX_DEPTH), a limit passed,
// a duplicate dict key — returns null before any effect, and the caller runs the VM from
// the start.
import type { ExecOptions, VMState } from './vm.js';
import { nestedStep } from './direct-read.js';
import { Op } from './opcodes.js';
import { ARRAY_BYTES, OBJECT_BYTES, UNIT } from './allocation.js';
import { likeMatch, NOT_PURE, pureCall } from './straight-stl.js';

// The VM's defaults (@posthog/hogvm: DEFAULT_MAX_ASYNC_STEPS, MAX_FUNCTION_ARGS_LENGTH, DEFAULT_MAX_MEMORY, DEFAULT_TIMEOUT_MS).
const DEFAULT_MAX_ASYNC_STEPS = 100;
const MAX_FUNCTION_ARGS = 300;
const DEFAULT_MEMORY_LIMIT = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_OPS = 10_000;
// Deeper values go to the VM (and a cycle is one).
const MAX_DEPTH = 64;

export interface StraightSlice {
  name: string;
  args: unknown[];
  state: VMState;
}

// What a value costs: the VM's price (calculateCost of its conversion) and the heap of a copy.
interface Costs {
  vm: number;
  heap: number;
}

// Both costs of a plain value in one walk, or null when the VM would read it otherwise.
function costsOf(value: unknown, out: Costs, depth: number): boolean {
  if (typeof value === 'string') {
    out.vm += UNIT + value.length;
    out.heap += value.length * 2;
    return true;
  }
  if (typeof value !== 'object' || value === null) {
    out.vm += UNIT;
    out.heap += UNIT;
    return true;
  }
  if (depth >= MAX_DEPTH) return false;
  out.vm += UNIT;
  if (Array.isArray(value)) {
    out.heap += ARRAY_BYTES + value.length * UNIT;
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !costsOf(value[i], out, depth + 1)) return false;
    }
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const v = value as Record<string, unknown>;
  if (v.__hogDateTime__ || v.__hogDate__ || v.__hogClosure__ || v.__hogCallable__) return false;
  out.heap += OBJECT_BYTES;
  for (const key in v) {
    out.vm += UNIT + key.length;
    out.heap += 3 * UNIT + key.length * 2;
    if (!costsOf(v[key], out, depth + 1)) return false;
  }
  return true;
}

/** Where a straight run starts: a program's start, or a suspended program resumed with its value. */
interface Start {
  ip: number;
  ops: number;
  maxMemUsed: number;
  asyncSteps: number;
  syncDuration: number;
  // Whether the program may end here (a resumed slice); a first slice that ends is the VM's.
  mayFinish: boolean;
}

/** A resumed slice that ran to its end: the program's result and the VM's figures. */
export interface StraightEnd {
  result: unknown;
  ops: number;
  maxMemUsed: number;
}

// The run under way, kept here rather than in closures and objects made per run: a delivery
// runs two slices, and what they allocated was most of their cost after the values' walks
// (bench/RESULTS.md, issue 26). One run at a time: straight code calls nothing that runs
// straight code. `stack` is the run's own (a suspended program keeps it); per stack slot,
// `prices` holds its VM price and `heaps` its copy's heap.
let stack: unknown[] = [];
let prices = new Float64Array(64);
let heaps = new Float64Array(64);
let memUsed = 0;
let maxMemUsed = 0;
let memLimit = 0;
// What one value costs, filled by costsOf (read before the next walk).
const walked: Costs = { vm: 0, heap: 0 };

function begin(values: unknown[], limit: number, max: number): void {
  stack = values;
  memUsed = 0;
  maxMemUsed = max;
  memLimit = limit;
}

// Pushes a value with its figures; false when the VM would fail for memory.
function push(value: unknown, price: number, heap: number): boolean {
  const at = stack.length;
  if (at === prices.length) {
    const more = new Float64Array(at * 2);
    more.set(prices);
    prices = more;
    const moreHeaps = new Float64Array(at * 2);
    moreHeaps.set(heaps);
    heaps = moreHeaps;
  }
  stack.push(value);
  prices[at] = price;
  heaps[at] = heap;
  memUsed += price;
  if (memUsed > maxMemUsed) maxMemUsed = memUsed;
  return !(memUsed > memLimit && memLimit > 0);
}

// Callers check the stack holds a value.
function pop(): unknown {
  const value = stack.pop();
  memUsed -= prices[stack.length];
  return value;
}

// Walks a value (costsOf) into `walked` and pushes it; false to leave the run to the VM.
function pushWalked(value: unknown): boolean {
  walked.vm = 0;
  walked.heap = 0;
  return costsOf(value, walked, 0) && push(value, walked.vm, walked.heap);
}

/**
 * The first slice of `bytecode` on `globals` as the VM would run it, when it is straight
 * code up to an async call (see above); null to run the VM. `leavingRoom` is asked whether
 * the stack and arguments may leave the VM (their VM and heap costs, as ./host.ts measures them).
 */
export function straightSlice(bytecode: readonly unknown[], vm: ExecOptions, leavingRoom: (cost: Costs) => boolean, globals = vm.globals ?? {}): StraightSlice | null {
  if (bytecode[0] !== '_H' || typeof bytecode[1] !== 'number' || bytecode[1] < 1) return null;
  begin([], vm.memoryLimit ?? DEFAULT_MEMORY_LIMIT, 0);
  const out = straightRun(bytecode, vm, globals, leavingRoom, { ip: 2, ops: 0, maxMemUsed: 0, asyncSteps: 0, syncDuration: 0, mayFinish: false });
  return out === null || !('name' in out) ? null : out;
}

/**
 * A whole program (a filter's expression) run to its end as the VM would run it, when it is
 * straight code that calls no async function; null to run the VM.
 */
export function straightProgram(bytecode: readonly unknown[], vm: ExecOptions, leavingRoom: (cost: Costs) => boolean, globals = vm.globals ?? {}): StraightEnd | null {
  if (bytecode[0] !== '_H' || typeof bytecode[1] !== 'number' || bytecode[1] < 1) return null;
  begin([], vm.memoryLimit ?? DEFAULT_MEMORY_LIMIT, 0);
  const out = straightRun(bytecode, vm, globals, leavingRoom, { ip: 2, ops: 0, maxMemUsed: 0, asyncSteps: 0, syncDuration: 0, mayFinish: true });
  return out === null || 'name' in out ? null : out;
}

/**
 * A program suspended at an async call (a state of the root frame alone, as a straight first
 * slice leaves it) resumed with the call's value, when the rest is straight code that ends
 * (the end of the program, or RETURN): its result and figures as the VM gives them; null to
 * resume it in the VM (another async call, print(), a throw, anything straightSlice refuses).
 * `leavingRoom` is asked whether the result may leave the VM. The state is not changed.
 */
export function straightResume(state: VMState, value: unknown, vm: ExecOptions, leavingRoom: (cost: Costs) => boolean, globals = vm.globals ?? {}): StraightEnd | null {
  const root = state.bytecodes?.root?.bytecode;
  if (!Array.isArray(root) || root[0] !== '_H' || Object.keys(state.bytecodes).length !== 1) return null;
  if (state.callStack.length !== 1 || state.upvalues.length !== 0 || state.throwStack.length !== 0) return null;
  if (Object.keys(state.declaredFunctions ?? {}).length !== 0) return null;
  const frame = state.callStack[0];
  if (frame.chunk !== 'root' || frame.stackStart !== 0 || typeof frame.ip !== 'number') return null;
  // The VM converts the stack (the value pushed last) and prices each value as it enters;
  // the limit is checked once all are in.
  begin([], vm.memoryLimit ?? DEFAULT_MEMORY_LIMIT, 0);
  const limit = memLimit;
  memLimit = 0;
  for (const v of state.stack) if (!pushWalked(v)) return null;
  if (!pushWalked(value ?? null)) return null;
  memLimit = limit;
  if (memUsed > limit && limit > 0) return null;
  const out = straightRun(root, vm, globals, leavingRoom, {
    ip: frame.ip, ops: state.ops, maxMemUsed: Math.max(state.maxMemUsed, memUsed), asyncSteps: state.asyncSteps, syncDuration: state.syncDuration ?? 0, mayFinish: true,
  });
  return out === null || 'name' in out ? null : out;
}

// The program's end (its result the value on top, as the VM's), if this run may end.
function finish(start: Start, started: number, timeout: number, leavingRoom: (cost: Costs) => boolean, ops: number): StraightEnd | null {
  if (!start.mayFinish || start.syncDuration + Date.now() - started > timeout) return null;
  const top = stack.length - 1;
  const result = top >= 0 ? stack[top] : null;
  if (top >= 0) {
    walked.vm = prices[top];
    walked.heap = heaps[top];
  } else {
    walked.vm = UNIT;
    walked.heap = UNIT;
  }
  if (!leavingRoom(walked)) return null;
  return { result, ops, maxMemUsed };
}

function straightRun(bytecode: readonly unknown[], vm: ExecOptions, globals: Record<string, unknown>, leavingRoom: (cost: Costs) => boolean, start: Start): StraightSlice | StraightEnd | null {
  const started = Date.now();
  const timeout = vm.timeout ?? DEFAULT_TIMEOUT_MS;
  maxMemUsed = Math.max(maxMemUsed, start.maxMemUsed);
  let ops = start.ops;
  const end = bytecode.length;
  let ip = start.ip;
  for (;;) {
    if (ip >= end) return finish(start, started, timeout, leavingRoom, ops);
    // Past this the VM runs it (and keeps its time bound).
    if (++ops > MAX_OPS) return null;
    const op = bytecode[ip];
    if (op === Op.RETURN) {
      // At the root frame: the value on top is the result (the VM pops it).
      if (stack.length === 0) return null;
      return finish(start, started, timeout, leavingRoom, ops);
    }
    // An operand read past the end is undefined, which each op's type check refuses.
    switch (op) {
      case Op.STRING: {
        const s = bytecode[++ip];
        if (typeof s !== 'string' || !push(s, UNIT + s.length, s.length * 2)) return null;
        break;
      }
      case Op.INTEGER:
      case Op.FLOAT: {
        const n = bytecode[++ip];
        if (typeof n !== 'number' || !push(n, UNIT, UNIT)) return null;
        break;
      }
      case Op.TRUE:
      case Op.FALSE:
      case Op.NULL:
        if (!push(op === Op.TRUE ? true : op === Op.FALSE ? false : null, UNIT, UNIT)) return null;
        break;
      case Op.NOT:
        if (stack.length === 0 || !push(!pop(), UNIT, UNIT)) return null;
        break;
      case Op.AND:
      case Op.OR: {
        const count = bytecode[++ip];
        if (typeof count !== 'number' || count < 0 || count > stack.length) return null;
        // The VM pops every operand (no short circuit here: the compiler jumps for that).
        let result = op === Op.AND;
        for (let i = 0; i < count; i++) {
          const value = !!pop();
          result = op === Op.AND ? value && result : value || result;
        }
        if (!push(result, UNIT, UNIT)) return null;
        break;
      }
      case Op.EQ:
      case Op.NOT_EQ: {
        if (stack.length < 2) return null;
        const left = stack[stack.length - 1];
        const right = stack[stack.length - 2];
        // Dicts, arrays and dates compare otherwise in the VM (a dict is a Map there).
        if ((typeof left === 'object' && left !== null) || (typeof right === 'object' && right !== null)) return null;
        pop();
        pop();
        if (!push(op === Op.EQ ? left === right : left !== right, UNIT, UNIT)) return null;
        break;
      }
      case Op.LIKE:
      case Op.ILIKE:
      case Op.NOT_LIKE:
      case Op.NOT_ILIKE: {
        if (stack.length < 2) return null;
        // The text is on top, the pattern under it. Strings only: the VM prints anything else first.
        const text = stack[stack.length - 1];
        const pattern = stack[stack.length - 2];
        if (typeof text !== 'string' || typeof pattern !== 'string') return null;
        const matched = likeMatch(text, pattern, op === Op.ILIKE || op === Op.NOT_ILIKE);
        if (matched === null) return null;
        pop();
        pop();
        if (!push(op === Op.LIKE || op === Op.ILIKE ? matched : !matched, UNIT, UNIT)) return null;
        break;
      }
      case Op.GT:
      case Op.GT_EQ:
      case Op.LT:
      case Op.LT_EQ: {
        if (stack.length < 2) return null;
        // The left operand is on top. Numbers only: dates, strings and arrays order otherwise in the VM.
        const left = stack[stack.length - 1];
        const right = stack[stack.length - 2];
        if (typeof left !== 'number' || typeof right !== 'number') return null;
        pop();
        pop();
        const result = op === Op.GT ? left > right : op === Op.GT_EQ ? left >= right : op === Op.LT ? left < right : left <= right;
        if (!push(result, UNIT, UNIT)) return null;
        break;
      }
      case Op.POP:
        if (stack.length === 0) return null;
        pop();
        break;
      case Op.GET_LOCAL: {
        // The root frame's locals start at the bottom of the stack.
        const at = bytecode[++ip];
        if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= stack.length) return null;
        if (!push(stack[at], prices[at], heaps[at])) return null;
        break;
      }
      case Op.SET_LOCAL: {
        const at = bytecode[++ip];
        if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= stack.length - 1) return null;
        const price = prices[stack.length - 1];
        const heap = heaps[stack.length - 1];
        const value = pop();
        stack[at] = value;
        memUsed += price - prices[at];
        prices[at] = price;
        heaps[at] = heap;
        if (memUsed > maxMemUsed) maxMemUsed = memUsed;
        break;
      }
      case Op.GET_PROPERTY:
      case Op.GET_PROPERTY_NULLISH: {
        if (stack.length < 2) return null;
        const key = pop();
        const from = pop();
        let value: unknown = null;
        if (Array.isArray(from)) {
          // Hog's indexes: from 1, negative from the end; 0 is the VM's error.
          if (typeof key !== 'number' || !Number.isInteger(key) || key === 0) return null;
          value = (key > 0 ? from[key - 1] : from[from.length + key]) ?? null;
        } else if (typeof from === 'object' && from !== null) {
          // A Map in the VM: only its own string keys.
          if (typeof key !== 'string') return null;
          value = Object.hasOwn(from, key) ? (from as Record<string, unknown>)[key] ?? null : null;
        }
        if (!pushWalked(value)) return null;
        break;
      }
      case Op.GET_GLOBAL: {
        // The names are on top, the first one last pushed: read in place, then popped.
        const count = bytecode[++ip];
        if (typeof count !== 'number' || count < 1 || count > stack.length) return null;
        const top = stack.length - 1;
        for (let i = 0; i < count; i++) if (typeof stack[top - i] !== 'string') return null;
        const first = stack[top] as string;
        if (!Object.hasOwn(globals, first)) return null;
        let value: unknown = globals;
        for (let i = 0; i < count; i++) value = nestedStep(value, stack[top - i] as string);
        for (let i = 0; i < count; i++) pop();
        if (!pushWalked(value)) return null;
        break;
      }
      case Op.DICT: {
        const pairs = bytecode[++ip];
        if (typeof pairs !== 'number' || pairs < 0 || pairs * 2 > stack.length) return null;
        const from = stack.length - pairs * 2;
        const dict: Record<string, unknown> = {};
        let price = UNIT;
        let heap = OBJECT_BYTES;
        for (let i = from; i < stack.length; i += 2) {
          const key = stack[i];
          if (typeof key !== 'string' || Object.hasOwn(dict, key) || key === '__proto__') return null;
          if (key === '__hogDateTime__' || key === '__hogDate__' || key === '__hogClosure__' || key === '__hogCallable__') return null;
          dict[key] = stack[i + 1];
          price += prices[i] + prices[i + 1];
          heap += 3 * UNIT + key.length * 2 + heaps[i + 1];
        }
        while (stack.length > from) pop();
        if (!push(dict, price, heap)) return null;
        break;
      }
      case Op.ARRAY: {
        const count = bytecode[++ip];
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > stack.length) return null;
        const from = stack.length - count;
        let price = UNIT;
        let heap = ARRAY_BYTES + count * UNIT;
        for (let i = from; i < stack.length; i++) {
          price += prices[i];
          heap += heaps[i];
        }
        const array = stack.slice(from);
        while (stack.length > from) pop();
        if (!push(array, price, heap)) return null;
        break;
      }
      case Op.JUMP: {
        const offset = bytecode[++ip];
        // Forward only: straight code.
        if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) return null;
        ip += offset;
        break;
      }
      case Op.JUMP_IF_FALSE: {
        const offset = bytecode[++ip];
        if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || stack.length === 0) return null;
        if (!pop()) ip += offset;
        break;
      }
      case Op.JUMP_IF_STACK_NOT_NULL: {
        const offset = bytecode[++ip];
        if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) return null;
        if (stack.length > 0 && stack[stack.length - 1] !== null) ip += offset;
        break;
      }
      case Op.CALL_GLOBAL: {
        if (ip + 2 >= end) return null;
        const name = bytecode[++ip];
        const argCount = bytecode[++ip];
        if (typeof name !== 'string' || typeof argCount !== 'number' || argCount < 0 || argCount > stack.length || argCount > MAX_FUNCTION_ARGS) return null;
        if (name === 'import' || (vm.functions && Object.hasOwn(vm.functions, name))) return null;
        if (!vm.asyncFunctions || !Object.hasOwn(vm.asyncFunctions, name) || !vm.asyncFunctions[name]) {
          // Not the host's: one of the pure STL functions, answered here, or the VM's.
          const from = stack.length - argCount;
          const result = pureCall(name, stack.slice(from));
          if (result === NOT_PURE) return null;
          while (stack.length > from) pop();
          if (!pushWalked(result)) return null;
          break;
        }
        // A resumed program's further async call is the VM's (its state is stored then).
        if (start.mayFinish || (vm.maxAsyncSteps ?? DEFAULT_MAX_ASYNC_STEPS) <= start.asyncSteps) return null;
        if (Date.now() - started > timeout) return null;
        const from = stack.length - argCount;
        let argsHeap = 0;
        let stackHeap = 0;
        for (let i = 0; i < stack.length; i++) {
          if (i < from) stackHeap += heaps[i];
          else argsHeap += heaps[i];
        }
        const args = stack.slice(from);
        let argsPrice = 0;
        for (let i = from; i < stack.length; i++) argsPrice += prices[i];
        while (stack.length > from) pop();
        // What leaves: [stack, upvalues, args], priced as ./host.ts prices it.
        const leaving: Costs = {
          vm: 4 * UNIT + memUsed + argsPrice,
          heap: ARRAY_BYTES + 3 * UNIT + ARRAY_BYTES + stack.length * UNIT + stackHeap + ARRAY_BYTES + ARRAY_BYTES + args.length * UNIT + argsHeap,
        };
        if (!leavingRoom(leaving)) return null;
        const state: VMState = {
          bytecodes: { root: { bytecode: bytecode as unknown[] } },
          stack,
          upvalues: [],
          callStack: [{
            // The next op after the call, where the VM resumes.
            ip: ip + 1, chunk: 'root', stackStart: 0, argCount: 0,
            closure: { __hogClosure__: true, callable: { __hogCallable__: 'local', name: '', chunk: 'root', argCount: 0, upvalueCount: 0, ip: 1 }, upvalues: [] },
          }],
          throwStack: [],
          declaredFunctions: {},
          ops,
          asyncSteps: 1,
          syncDuration: Date.now() - started,
          maxMemUsed,
          telemetry: undefined,
        } as VMState;
        return { name, args, state };
      }
      default:
        return null;
    }
    ip++;
  }
}
