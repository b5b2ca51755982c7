// The stream follower (src/cluster/follow.ts) against a real nats-server, its consumer's
// connection behind a TCP proxy the test freezes: connections stay open and nothing passes,
// as when the server hosting a consumer is lost and the client is not told. The stream's end
// stays readable over another connection (the stream is led elsewhere), so the follower sees
// the stream hold what it has not had: it abandons its consumer as stalled, says it is stale
// past the stall bound, and follows again once its consumer's connection is back. A follower
// stopped while its consumer is being made leaves nothing running once its connection closes.
import { createHook } from 'node:async_hooks';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type JsMsg, type NatsConnection } from 'nats';
import { followStream, type Follower, type StreamHandle } from '../../src/cluster/index.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually } from '../helpers/wait.js';

const s = suite('stream follower stall detection');
const nats = natsServerForSuite();
const STREAM = 'HEDGEROW_FOLLOW_TEST';
const SUBJECT = 'hedgerow.follow.test';
// Small, so that the test waits out bounds of a second or less.
const STALL_MS = 1000;

let direct: NatsConnection;
const opened: { nc: NatsConnection; proxy: TcpProxy; stop: AbortController; follower: Follower }[] = [];
s.before(async () => {
  await nats.start();
  direct = await connect({ servers: nats.server().url });
  await (await direct.jetstreamManager()).streams.add({ name: STREAM, subjects: [SUBJECT] });
});
s.after(async () => {
  for (const o of opened) {
    o.stop.abort();
    o.proxy.thaw();
    await o.follower.done.catch(() => undefined);
    await o.nc.close();
    await o.proxy.close();
  }
  await direct?.close();
  await nats.close();
});

// A follower whose consumers are made over a connection through a proxy; its stream's end is
// read over the direct connection, or through the proxy too (`endThroughProxy`).
async function follower(endThroughProxy: boolean) {
  const proxy = await startTcpProxy(nats.server().port);
  const nc = await connect({ servers: proxy.natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const jsm = await (endThroughProxy ? nc : direct).jetstreamManager();
  const stream: StreamHandle = {
    name: STREAM, subject: SUBJECT, info: await jsm.streams.info(STREAM), js: nc.jetstream(), jsm,
    link: { nc, maxPayload: () => 1024 * 1024, connected: () => !nc.isClosed() },
    current: () => jsm.streams.info(STREAM),
  };
  const applied: number[] = [];
  const stop = new AbortController();
  const f = followStream({
    stream, batchMax: 16, stallMs: STALL_MS, signal: stop.signal,
    position: () => applied[applied.length - 1] ?? stream.info.state.last_seq,
    async apply(batch: JsMsg[]) { applied.push(...batch.map((m) => m.seq)); },
  });
  opened.push({ nc, proxy, stop, follower: f });
  return { proxy, applied, follower: f };
}

const publish = async (n: number) => {
  const js = direct.jetstream();
  for (let i = 0; i < n; i++) await js.publish(SUBJECT, new Uint8Array([i]));
};

s('a consumer that stops delivering while the stream grows is abandoned, made anew, and the follower is stale until it is', async () => {
  const { proxy, applied, follower: f } = await follower(false);
  const start = (await (await direct.jetstreamManager()).streams.info(STREAM)).state.last_seq;
  await publish(2);
  await eventually(async () => applied.length === 2, 10_000);
  assert.is(f.stale(), null);
  assert.is(f.stalls(), 0);

  proxy.freeze();
  await publish(3);
  // Seen behind, abandoned, and said stale past the whole bound.
  const reason = await eventually(async () => f.stale(), 10_000);
  assert.match(reason, /^3 message\(s\) behind the stream \(applied through \d+ of \d+\)/);
  assert.is(f.state().lag, 3);
  assert.ok(f.stalls() >= 1, `stalls: ${f.stalls()}`);
  assert.equal(applied, [start + 1, start + 2]);

  proxy.thaw();
  await eventually(async () => applied.length === 5, 10_000);
  assert.equal(applied, [1, 2, 3, 4, 5].map((i) => start + i), 'each message once, in order');
  await eventually(async () => f.stale() === null, 10_000);
  assert.is(f.state().lag, 0);
});

s('a follower that cannot read its stream\'s end says so past the bound, and abandons no consumer for it', async () => {
  const { proxy, follower: f } = await follower(true);
  await eventually(async () => f.stale() === null && f.state().unknownMs < STALL_MS / 2, 10_000);
  proxy.freeze();
  const reason = await eventually(async () => f.stale(), 10_000);
  assert.match(reason, /^the stream's end not learnt for \d+\.\d s, more than the stall bound of 1\.0 s$/);
  assert.is(f.stalls(), 0);
  proxy.thaw();
  await eventually(async () => f.stale() === null, 10_000);
});

// What the scenario leaves behind: the timers, sockets and children made while it runs (an
// async hook sees each made and each closed), not the process's others, which earlier cases
// and files in the same process start and end on their own schedule. What is made after
// `ended` (the test's own polling) is not counted.
function madeWhileOpen(): { open: Map<number, string>; ended: () => void; stop: () => void } {
  const open = new Map<number, string>();
  const kinds = new Set(['Timeout', 'Immediate', 'TCPWRAP', 'TCPSERVERWRAP', 'PIPEWRAP', 'PROCESSWRAP']);
  let counting = true;
  const hook = createHook({
    init: (id, type) => { if (counting && kinds.has(type)) open.set(id, type); },
    destroy: (id) => { open.delete(id); },
  }).enable();
  return { open, ended: () => { counting = false; }, stop: () => hook.disable() };
}

s('a follower stopped while its consumer is being made, then its connection closed, leaves nothing running', async () => {
  const left = madeWhileOpen();
  const proxy = await startTcpProxy(nats.server().port);
  const nc = await connect({ servers: proxy.natsUrl });
  const jsm = await direct.jetstreamManager();
  // The stream's info passes; then the proxy is frozen, so the request that makes the
  // server-side consumer is left waiting when the follower is stopped and the connection closed.
  const real = nc.jetstream();
  let making!: () => void;
  const made = new Promise<void>((resolve) => { making = resolve; });
  const get: typeof real.consumers.get = async (...args: Parameters<typeof real.consumers.get>) => {
    const consumer = await real.consumers.get(...args);
    proxy.freeze();
    making();
    return consumer;
  };
  const js = Object.create(real, { consumers: { value: { get } } }) as typeof real;
  const stop = new AbortController();
  const f = followStream({
    stream: {
      name: STREAM, subject: SUBJECT, info: await jsm.streams.info(STREAM), js, jsm,
      link: { nc, maxPayload: () => 1024 * 1024, connected: () => !nc.isClosed() }, current: () => jsm.streams.info(STREAM),
    },
    // No second attempt while the first waits.
    batchMax: 16, stallMs: 60_000, signal: stop.signal, position: () => 0, apply: async () => undefined,
  });
  await made;
  stop.abort();
  await f.done;
  await nc.close();
  await proxy.close();
  left.ended();
  await eventually(async () => left.open.size === 0, 5_000).catch(() => undefined);
  left.stop();
  assert.equal([...left.open.values()], []);
});

s.run();
