// Warnings that a misconfigured client would raise on every event (a sixth group type
// in $groups) are kept to one per project, type and key per interval; merge warnings
// are about single events and are always kept.

export interface WarningLimiter {
  allow(projectId: number, type: string, key: string): boolean;
}

const WARNING_INTERVAL_MS = 60_000;

export function createWarningLimiter(now: () => number, intervalMs = WARNING_INTERVAL_MS): WarningLimiter {
  const last = new Map<string, number>();
  return {
    allow(projectId, type, key) {
      const id = `${projectId}\u0000${type}\u0000${key}`;
      const t = now();
      const prev = last.get(id);
      if (prev !== undefined && t - prev < intervalMs) return false;
      // Forget expired entries now and then, so a stream of distinct keys cannot grow the map.
      if (last.size > 10_000) for (const [k, at] of last) if (t - at >= intervalMs) last.delete(k);
      last.set(id, t);
      return true;
    },
  };
}
