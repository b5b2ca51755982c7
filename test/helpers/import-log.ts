// A module resolve hook (node --import, module.register) that writes every module a
// process resolves to stderr, one `resolved <url>` line each: what a command loads.
import type { ResolveHook } from 'node:module';

export const resolve: ResolveHook = async (specifier, context, next) => {
  const resolved = await next(specifier, context);
  process.stderr.write(`resolved ${resolved.url}\n`);
  return resolved;
};
