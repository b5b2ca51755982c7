// What a process costs, read from /proc (Linux): its CPU time in all, its main thread's
// and each thread's, its memory, and the whole machine's busy time. Unlike requests/s,
// CPU per request barely moves when other work shares the machine.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ

// utime + stime of a /proc stat line, in ticks (fields 14 and 15, after the command).
function statTicks(path: string): number {
  const stat = readFileSync(path, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function threadTicks(pid: number, tid: number): number {
  try {
    return statTicks(`/proc/${pid}/task/${tid}/stat`);
  } catch {
    return 0; // the thread ended
  }
}

// CPU time (µs) of a process's main thread and of the whole process (every thread, the
// ended ones included).
export interface CpuUse { main: number; total: number }
export function cpuOf(pid: number): CpuUse {
  return { main: threadTicks(pid, pid) * TICK_US, total: statTicks(`/proc/${pid}/stat`) * TICK_US };
}

// CPU time (µs) of each live thread, by thread id. Node names every thread "node" (worker
// threads included), so a thread is known by its id and its share only.
export function threadsCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) out.set(Number(tid), threadTicks(pid, Number(tid)) * TICK_US);
  return out;
}

// Resident memory in kB: now (rss = anon + file + shmem), and the peak (VmHWM).
export interface MemoryUse { rss: number; peak: number; anon: number; file: number }
export function memoryOf(pid: number): MemoryUse {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS'), peak: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

// The machine's busy and total CPU time (µs, all CPUs) since boot, from /proc/stat.
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = f[3] + f[4]; // idle + iowait
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) * TICK_US, total: total * TICK_US };
}

// Resident memory in kB from /proc/PID/smaps_rollup: anonymous (the heaps, malloc's arenas,
// DuckDB's buffers: what memory pressure cannot take back without swap) apart from
// file-backed (LMDB's and DuckDB's mapped pages, code: clean pages the kernel reclaims).
export interface Resident { rss: number; anon: number; file: number }
export function residentOf(pid: number): Resident {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  const rss = kb('Rss');
  const anon = kb('Anonymous');
  return { rss, anon, file: rss - anon };
}

// Each live thread's name (/proc/PID/task/TID/comm): "node" unless the thread named itself
// (hedgerow's log consumers do, by consumer).
export function threadNames(pid: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // the thread ended
    }
  }
  return out;
}

// A process's page faults since it started (/proc/PID/stat fields 10 and 12): a major fault
// read a page from disk (a mapped LMDB or DuckDB page the kernel had dropped, under a memory
// cgroup's limit most of all).
export function faultsOf(pid: number): { minor: number; major: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { minor: Number(f[7]), major: Number(f[9]) };
}

// Bytes a process (or one of its threads, `tid`) read from and wrote to storage
// (/proc/PID/io; 0 where it cannot be read): a write counts for the thread that dirtied the page.
export function ioOf(pid: number, tid?: number): { read: number; write: number } {
  try {
    const text = readFileSync(tid === undefined ? `/proc/${pid}/io` : `/proc/${pid}/task/${tid}/io`, 'utf8');
    const n = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { read: n('read_bytes'), write: n('write_bytes') };
  } catch {
    return { read: 0, write: 0 };
  }
}
