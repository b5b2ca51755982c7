// Flag dependencies the way the local-evaluation feed carries them. PostHog stores a
// dependency ("type": "flag") by the id of the flag depended on; the feed names it by key
// and adds `dependency_chain`: the flags to evaluate first, in order, the target last.
// The chain is empty when a flag on the way is missing or the dependencies form a cycle,
// so SDKs can tell such flags apart without rebuilding the graph. Pure.
import type { ConditionDefinition, FlagFiltersDefinition, PropertyFilterDefinition } from '../types.js';

interface KeyedFlag {
  readonly id: number;
  readonly key: string;
  readonly filters: FlagFiltersDefinition;
}

const flagProperties = (filters: FlagFiltersDefinition): PropertyFilterDefinition[] =>
  (filters.groups ?? []).flatMap((g) => (g.properties ?? []).filter((p) => p.type === 'flag'));

// Rewrites the flag filters of a condition; other conditions stay the same objects.
function mapFlagProperties(filters: FlagFiltersDefinition, f: (p: PropertyFilterDefinition) => PropertyFilterDefinition): FlagFiltersDefinition {
  const groups = (filters.groups ?? []).map((g): ConditionDefinition => (
    g.properties?.some((p) => p.type === 'flag') ? { ...g, properties: g.properties.map((p) => (p.type === 'flag' ? f(p) : p)) } : g
  ));
  return { ...filters, groups };
}

function chainBuilder(depsOf: ReadonlyMap<string, readonly string[]>) {
  const memo = new Map<string, string[]>();
  // Depth first; false on a cycle or a missing flag.
  const visit = (key: string, done: Set<string>, onPath: Set<string>, chain: string[]): boolean => {
    if (onPath.has(key)) return false;
    if (done.has(key)) return true;
    const deps = depsOf.get(key);
    if (deps === undefined) return false;
    onPath.add(key);
    for (const dep of deps) if (dep !== key && !visit(dep, done, onPath, chain)) return false;
    onPath.delete(key);
    done.add(key);
    chain.push(key);
    return true;
  };
  return (key: string): string[] => {
    let chain = memo.get(key);
    if (chain === undefined) {
      chain = [];
      if (depsOf.get(key)?.includes(key) || !visit(key, new Set(), new Set(), chain)) chain = [];
      memo.set(key, chain);
    }
    return chain;
  };
}

/**
 * Each flag with its dependencies named by key and given their chain. Flags without
 * dependencies come back unchanged; a reference to no (undeleted) flag keeps its text.
 */
export function withDependencyChains<T extends KeyedFlag>(flags: readonly T[]): T[] {
  if (!flags.some((f) => flagProperties(f.filters).length > 0)) return [...flags];
  const keyOfId = new Map(flags.map((f) => [String(f.id), f.key]));
  const keyed = flags.map((f) => (flagProperties(f.filters).length === 0 ? f
    : { ...f, filters: mapFlagProperties(f.filters, (p) => ({ ...p, key: keyOfId.get(String(p.key)) ?? String(p.key) })) }));
  const depsOf = new Map(keyed.map((f) => [f.key, flagProperties(f.filters).map((p) => String(p.key))]));
  const chainOf = chainBuilder(depsOf);
  return keyed.map((f) => (depsOf.get(f.key)!.length === 0 ? f
    : { ...f, filters: mapFlagProperties(f.filters, (p) => ({ ...p, dependency_chain: chainOf(String(p.key)) })) }));
}
