// How far a stream follower is behind its stream (./follow.ts), judged from what it learns of
// the stream's end: reads of the stream's state, the pending count of a delivered message, the
// acknowledgement of a message this node published. A pure core: the caller passes the time.
//
// The follower is behind by the messages it knows to be in the stream and has not applied,
// and for as long as the oldest of them has been known: a message learnt of at t and still
// not applied at t + stallMs has waited more than the stall bound, however many came since.
// Not knowing counts too: a follower that has learnt nothing of its stream's end for longer
// than the bound (the cluster does not answer it) cannot say it is caught up.

export interface FollowState {
  // The last sequence applied.
  position: number;
  // The stream's last sequence as last learnt (at least `position`).
  end: number;
  // Messages known to be in the stream and not applied.
  lag: number;
  // How long the oldest of them has been known to be there (0: none).
  behindMs: number;
  // Since the stream's end was last learnt (or since the follower started, if never).
  unknownMs: number;
}

// Observations kept at most: while a follower stands still, one a read. Past the cap the
// newest is moved on instead, which keeps the oldest (and so the judgement) as it was.
const KEPT = 64;

export interface StreamLag {
  // The stream ended at `end` at `now`.
  observe(end: number, now: number): void;
  // Where a follower that applied through `position` stands at `now`.
  state(position: number, now: number): FollowState;
}

export function streamLag(startedAt: number): StreamLag {
  // Increasing ends, each with when it was first learnt; those applied are dropped.
  const seen: { end: number; at: number }[] = [];
  let end = 0;
  let learntAt = startedAt;
  return {
    observe(e, now) {
      learntAt = Math.max(learntAt, now);
      if (e <= end) return;
      end = e;
      if (seen.length < KEPT) seen.push({ end: e, at: now });
      else seen[seen.length - 1].end = e;
    },
    state(position, now) {
      while (seen.length > 0 && seen[0].end <= position) seen.shift();
      return {
        position,
        end: Math.max(end, position),
        lag: Math.max(0, end - position),
        behindMs: seen.length > 0 ? Math.max(0, now - seen[0].at) : 0,
        unknownMs: Math.max(0, now - learntAt),
      };
    },
  };
}

// Why a follower in `s` cannot say it follows its stream within `stallMs`, or null when it can.
export function staleReason(s: FollowState, stallMs: number): string | null {
  const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  if (s.behindMs > stallMs) {
    return `${s.lag} message(s) behind the stream (applied through ${s.position} of ${s.end}) for ${secs(s.behindMs)}, ` +
      `more than the stall bound of ${secs(stallMs)}`;
  }
  if (s.unknownMs > stallMs) return `the stream's end not learnt for ${secs(s.unknownMs)}, more than the stall bound of ${secs(stallMs)}`;
  return null;
}
