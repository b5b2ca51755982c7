// Consumers run at a lower CPU priority than the capture thread: under a burst the
// durable acks stay fast and the consumers catch up afterwards (the backlog is
// exported as hedgerow_log_backlog_records). Linux applies nice values per thread;
// /proc/thread-self names this thread's id. Elsewhere this is a no-op.
import { readlinkSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThisThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

// Names this thread as the operating system shows it (top -H, ps -L, /proc/PID/task/TID/comm:
// at most 15 bytes): Node names every thread "node", so a busy or large thread could not
// be told from another. Linux only; elsewhere a no-op.
export function nameThisThread(name: string): boolean {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
    return true;
  } catch {
    return false;
  }
}
