// At most `perProject` operations of one kind in flight per project, and at most
// `waiting` more queued behind them (in arrival order); past both, the caller is refused.
// A project that keeps test runs or compiles going holds its own slots, never another's.
export interface ProjectSlots {
  // Resolves with a release function once the project has a slot; null when its queue is full.
  enter(projectId: number): Promise<() => void> | null;
}

export function projectSlots(perProject: number, waiting = 0): ProjectSlots {
  const projects = new Map<number, { running: number; queue: (() => void)[] }>();
  const release = (projectId: number) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const p = projects.get(projectId)!;
      const next = p.queue.shift();
      if (next) return next();
      p.running--;
      if (p.running === 0) projects.delete(projectId);
    };
  };
  return {
    enter(projectId) {
      let p = projects.get(projectId);
      if (!p) projects.set(projectId, (p = { running: 0, queue: [] }));
      if (p.running < perProject) {
        p.running++;
        return Promise.resolve(release(projectId));
      }
      if (p.queue.length >= waiting) return null;
      const queue = p.queue;
      return new Promise((resolve) => queue.push(() => resolve(release(projectId))));
    },
  };
}
