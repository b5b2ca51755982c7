// The flag dependency graph: an evaluation order with every flag after the flags it
// depends on, and which flags cannot be evaluated because a dependency is missing or
// they sit on a cycle. Such flags fail closed (false, missing_dependency), as in PostHog,
// and so does everything that depends on them.

/** ok; missing: a dependency (or one of its own) is unknown or deleted; cycle: on or above a cycle. */
export type DependencyStatus = 'ok' | 'missing' | 'cycle';

export interface DependencyOrder {
  readonly order: readonly number[];
  readonly status: readonly DependencyStatus[];
  readonly closure: readonly (readonly number[])[];
  readonly hasDependencies: boolean;
}

/** `dependsOn[i]` lists the flags flag i depends on; -1 stands for an unknown flag. */
export function orderByDependencies(dependsOn: readonly (readonly number[])[]): DependencyOrder {
  const n = dependsOn.length;
  const order: number[] = [];
  const status: DependencyStatus[] = new Array(n).fill('ok');
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const closure: number[][] = new Array(n);

  const visit = (i: number): void => {
    state[i] = 1;
    const reach = new Set<number>([i]);
    for (const dep of dependsOn[i]) {
      if (dep < 0) {
        if (status[i] === 'ok') status[i] = 'missing';
        continue;
      }
      if (state[dep] === 1) {
        status[i] = 'cycle';
        status[dep] = 'cycle';
        reach.add(dep);
        continue;
      }
      if (state[dep] === 0) visit(dep);
      for (const r of closure[dep]) reach.add(r);
      if (status[dep] === 'cycle') status[i] = 'cycle';
      else if (status[dep] === 'missing' && status[i] === 'ok') status[i] = 'missing';
    }
    state[i] = 2;
    closure[i] = [...reach];
    order.push(i);
  };
  for (let i = 0; i < n; i++) if (state[i] === 0) visit(i);

  return { order, status, closure, hasDependencies: dependsOn.some((d) => d.length > 0) };
}
