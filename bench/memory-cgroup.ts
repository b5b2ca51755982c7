// A memory cgroup a bench puts the server in (`--memory-cgroup MB`): the server's every page
// counts against the limit — its heap and native memory, and the store's mapped file pages and
// page cache, which the kernel reclaims under the limit rather than killing the process. A
// run that finishes inside it shows the service holds its load in that much memory; the
// cgroup's own peak and OOM count say how close it came. cgroup v1 (memory controller
// mounted at /sys/fs/cgroup/memory) or v2 (unified at /sys/fs/cgroup); root needed.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  limitMb: number;
  // Moves a process (and the threads it starts from then on) into the cgroup.
  join(pid: number): void;
  // Bytes charged at most since the cgroup was made (v1 max_usage, v2 memory.peak).
  peakBytes(): number;
  // Processes the kernel killed in it for want of memory.
  oomKills(): number;
  // memory.stat's counter of that name (v1 names a hierarchy's with total_; v2 has no prefix):
  // workingset_refault_file counts file pages read again after the limit made the kernel drop them.
  stat(name: string): number;
  remove(): void;
}

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';

function counter(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

export function memoryCgroup(limitMb: number, name = `hedgerow-bench-${process.pid}-${Date.now()}`): MemoryCgroup {
  const limit = String(limitMb * 1024 * 1024);
  const v1 = existsSync(join(V1, 'memory.limit_in_bytes'));
  if (!v1 && !existsSync(join(V2, 'cgroup.controllers'))) throw new Error('--memory-cgroup: no cgroup memory controller at /sys/fs/cgroup');
  const dir = join(v1 ? V1 : V2, name);
  mkdirSync(dir);
  if (v1) writeFileSync(join(dir, 'memory.limit_in_bytes'), limit);
  else writeFileSync(join(dir, 'memory.max'), limit);
  const read = (file: string) => readFileSync(join(dir, file), 'utf8');
  return {
    limitMb,
    join: (pid) => writeFileSync(join(dir, 'cgroup.procs'), String(pid)),
    peakBytes: () => Number(read(v1 ? 'memory.max_usage_in_bytes' : 'memory.peak').trim()),
    oomKills: () => counter(read(v1 ? 'memory.oom_control' : 'memory.events'), 'oom_kill'),
    stat: (name) => counter(read('memory.stat'), v1 ? `total_${name}` : name),
    remove() {
      try { rmdirSync(dir); } catch { /* a process still in it: left for the operator */ }
    },
  };
}
