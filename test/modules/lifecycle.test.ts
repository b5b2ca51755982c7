// The module lifecycle: modules start in order and see what the ones before provide,
// close in reverse, and a start that fails closes what already started.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defineModule, startModules, type Module } from '../../src/modules/index.js';
import type { Route } from '../../src/http/types.js';

interface Ctx { journal: string[] }

const route = (pattern: string): Route => ({ methods: ['GET'], pattern, bodyLimit: 0, handler: () => ({ status: 200 }) });

// A module that writes its start and close into the journal.
function recorded(name: string, extra: { fail?: boolean; failClose?: boolean; ready?: boolean } = {}): Module<Ctx, string> {
  return defineModule<Ctx, string>({
    name,
    start(ctx) {
      ctx.journal.push(`start ${name}`);
      if (extra.fail) throw new Error(`${name} cannot start`);
      return {
        provides: `${name}'s service`,
        routes: [route(`/${name}`)],
        ready: () => ({ [name]: extra.ready ?? true }),
        close() {
          ctx.journal.push(`close ${name}`);
          if (extra.failClose) throw new Error(`${name} cannot close`);
        },
      };
    },
  });
}

const s = suite('module lifecycle');

s('modules start in the order listed and close in reverse, once', async () => {
  const ctx: Ctx = { journal: [] };
  const running = await startModules([recorded('a'), recorded('b'), recorded('c')], ctx);
  assert.equal(running.routes.map((r) => r.pattern), ['/a', '/b', '/c']);
  await Promise.all([running.close(), running.close()]);
  assert.equal(ctx.journal, ['start a', 'start b', 'start c', 'close c', 'close b', 'close a']);
});

s('each close is reported with its module and duration, a failing one too, in the order closed', async () => {
  const ctx: Ctx = { journal: [] };
  const closed: [string, number][] = [];
  const running = await startModules([recorded('a'), recorded('b', { failClose: true }), recorded('c')], ctx, (name, ms) => closed.push([name, ms]));
  await running.close().catch(() => undefined);
  assert.equal(closed.map(([name]) => name), ['c', 'b', 'a']);
  for (const [, ms] of closed) assert.ok(Number.isInteger(ms) && ms >= 0);
});

s('a module reads what a module started before it provides', async () => {
  const a = recorded('a');
  let seen = '';
  const b = defineModule<Ctx>({ name: 'b', start: (_ctx, use) => { seen = use(a); return {}; } });
  await (await startModules([a, b], { journal: [] })).close();
  assert.is(seen, "a's service");
});

s('asking for a module listed later fails the start and unwinds', async () => {
  const ctx: Ctx = { journal: [] };
  const later = recorded('later');
  const early = defineModule<Ctx>({ name: 'early', start: (_ctx, use) => { use(later); return {}; } });
  try {
    await startModules([recorded('a'), early, later], ctx);
    assert.unreachable('started');
  } catch (err) {
    assert.match((err as Error).message, 'later is not started');
  }
  assert.equal(ctx.journal, ['start a', 'close a']);
});

s('a failing start closes every module already started, in reverse, and throws its own error', async () => {
  const ctx: Ctx = { journal: [] };
  try {
    await startModules([recorded('a'), recorded('b', { failClose: true }), recorded('c', { fail: true }), recorded('d')], ctx);
    assert.unreachable('started');
  } catch (err) {
    assert.is((err as Error).message, 'c cannot start');
  }
  assert.equal(ctx.journal, ['start a', 'start b', 'start c', 'close b', 'close a']);
});

s('a close that throws does not keep the others open; its error comes after all closed', async () => {
  const ctx: Ctx = { journal: [] };
  const running = await startModules([recorded('a'), recorded('b', { failClose: true }), recorded('c')], ctx);
  try {
    await running.close();
    assert.unreachable('closed');
  } catch (err) {
    assert.match((err as Error).message, 'closing b: b cannot close');
  }
  assert.equal(ctx.journal.slice(3), ['close c', 'close b', 'close a']);
});

s('readiness is every check of every module, ok only when all hold', async () => {
  const running = await startModules([recorded('a'), recorded('b', { ready: false })], { journal: [] });
  assert.equal(running.readiness(), { ok: false, checks: { a: true, b: false } });
  await running.close();
  const all = await startModules([recorded('a'), recorded('b')], { journal: [] });
  assert.equal(all.readiness(), { ok: true, checks: { a: true, b: true } });
  await all.close();
});

s('a failing check carries its module\'s reason; a check that holds, or a module that gives none, has none', async () => {
  let behind = true;
  const follower = defineModule<Ctx>({
    name: 'follower',
    start: () => ({
      ready: () => ({ control: !behind, telemetry: true }),
      unready: (): Record<string, string> => ({ ...(behind ? { control: 'behind by 3' } : {}), telemetry: 'said of a check that holds' }),
    }),
  });
  const running = await startModules([follower, recorded('b', { ready: false })], { journal: [] });
  assert.equal(running.readiness(), { ok: false, checks: { control: false, telemetry: true, b: false }, reasons: { control: 'behind by 3' } });
  behind = false;
  assert.equal(running.readiness(), { ok: false, checks: { control: true, telemetry: true, b: false } });
  await running.close();
});

s('two modules of one name are refused before anything starts', async () => {
  const ctx: Ctx = { journal: [] };
  try {
    await startModules([recorded('a'), recorded('a')], ctx);
    assert.unreachable('started');
  } catch (err) {
    assert.match((err as Error).message, 'two modules are named a');
  }
  assert.equal(ctx.journal, []);
});

s.run();
