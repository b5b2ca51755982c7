// The stall detection's pure core (src/cluster/lag.ts): how far a stream follower is behind,
// judged from what it learns of the stream's end and when, with the clock passed in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { staleReason, streamLag } from '../../src/cluster/index.js';

const s = suite('stream follower lag');
const STALL_MS = 1000;

s('caught up: no lag, nothing behind, not stale while the end is learnt within the bound', () => {
  const lag = streamLag(0);
  lag.observe(5, 0);
  lag.observe(5, 900);
  const st = lag.state(5, 1500);
  assert.equal(st, { position: 5, end: 5, lag: 0, behindMs: 0, unknownMs: 600 });
  assert.is(staleReason(st, STALL_MS), null);
});

s('behind is timed from when the oldest unapplied message was first learnt of, whatever came after', () => {
  const lag = streamLag(0);
  lag.observe(5, 100);
  lag.observe(8, 600);
  // A read showing no more refreshes what is known, not how long the oldest has waited.
  lag.observe(8, 1000);
  assert.equal(lag.state(3, 1000), { position: 3, end: 8, lag: 5, behindMs: 900, unknownMs: 0 });
  assert.is(staleReason(lag.state(3, 1000), STALL_MS), null);
  const st = lag.state(3, 1101);
  assert.is(st.behindMs, 1001);
  assert.match(staleReason(st, STALL_MS) ?? '', /^5 message\(s\) behind the stream \(applied through 3 of 8\) for 1\.0 s, more than the stall bound of 1\.0 s$/);
  // Applying through 5 leaves the messages learnt of at 600: younger than the bound.
  assert.equal(lag.state(5, 1200), { position: 5, end: 8, lag: 3, behindMs: 600, unknownMs: 200 });
  assert.is(staleReason(lag.state(5, 1200), STALL_MS), null);
  assert.equal(lag.state(8, 1300), { position: 8, end: 8, lag: 0, behindMs: 0, unknownMs: 300 });
});

s('a follower that learns nothing of its stream\'s end for longer than the bound is stale, even with no lag known', () => {
  const lag = streamLag(1000);
  assert.is(staleReason(lag.state(0, 2000), STALL_MS), null);
  assert.match(staleReason(lag.state(0, 2001), STALL_MS) ?? '', /^the stream's end not learnt for 1\.0 s, more than the stall bound of 1\.0 s$/);
  lag.observe(0, 2500);
  assert.is(staleReason(lag.state(0, 3000), STALL_MS), null);
});

s('a position past the end last learnt (delivered since) is no lag', () => {
  const lag = streamLag(0);
  lag.observe(4, 0);
  assert.equal(lag.state(6, 100), { position: 6, end: 6, lag: 0, behindMs: 0, unknownMs: 100 });
});

s('a follower standing still under many reads keeps its oldest message\'s time (the observations kept are bounded)', () => {
  const lag = streamLag(0);
  for (let i = 1; i <= 1000; i++) lag.observe(i, i * 10);
  const st = lag.state(0, 10_010);
  assert.is(st.lag, 1000);
  assert.is(st.behindMs, 10_000);
  // Applying part of it: what is left is timed no later than when it was learnt of.
  assert.ok(lag.state(500, 10_010).behindMs >= 10_010 - 5010, String(lag.state(500, 10_010).behindMs));
  assert.is(lag.state(1000, 10_010).behindMs, 0);
});

s.run();
