// At most `perProject` operations of one kind in flight per project: a project that keeps
// test runs or compiles going holds its own slots, never another project's.
export interface ProjectSlots {
  // A release function, or null when the project's slots are all taken.
  take(projectId: number): (() => void) | null;
}

export function projectSlots(perProject: number): ProjectSlots {
  const taken = new Map<number, number>();
  return {
    take(projectId) {
      const n = taken.get(projectId) ?? 0;
      if (n >= perProject) return null;
      taken.set(projectId, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (taken.get(projectId) ?? 1) - 1;
        if (left === 0) taken.delete(projectId);
        else taken.set(projectId, left);
      };
    },
  };
}
