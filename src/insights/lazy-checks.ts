// TypeBox checks of the query kinds, each compiled the first time a query of its kind is
// parsed rather than when the module loads: compiling all eleven cost ~0.2 s of the main
// thread at every node's start (bench/RESULTS.md, "A node's start: DuckDB required, flag
// workers on first use"), and a node may never answer a query of most kinds. A compiled
// check is kept, so requests compile nothing.
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

// By kind, looked up as data: a kind such as "__proto__" or "constructor" is just unknown.
export function lazyChecks(schemas: ReadonlyMap<string, TSchema>): (kind: string) => TypeCheck<TSchema> | undefined {
  const compiled = new Map<string, TypeCheck<TSchema>>();
  return (kind) => {
    let check = compiled.get(kind);
    if (check === undefined) {
      const schema = schemas.get(kind);
      if (schema === undefined) return undefined;
      compiled.set(kind, (check = TypeCompiler.Compile(schema)));
    }
    return check;
  };
}
