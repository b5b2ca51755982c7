// Each function's fetch pace, and the order in which functions with invocations waiting for
// a fetch slot take their turn (./deliveries.ts pump()): one served goes to the end, so the
// shared cap on fetches does not always favour the same functions. Records updated in place
// and a list of them, so serving a function makes nothing (a Map's delete and set, twice per
// delivery, made its table again and again).

// A function's fetches: how many are in flight, when one last ended (or started with none in
// flight), and until when they wait (a Retry-After, its rate limit's next token; 0: they do not).
// And its invocations waiting for a fetch slot, in order (null: none), with its neighbours in
// the turn.
export interface Pace<E> {
  readonly id: string;
  fetching: number;
  progressAt: number;
  holdUntil: number;
  waiting: E[] | null;
  prev: Pace<E> | null;
  next: Pace<E> | null;
}

export interface FetchTurns<E> {
  /** The function's pace, made at the first ask (kept while the deliveries live). */
  paceOf(id: string): Pace<E>;
  /** Its pace if it ever fetched or waited. */
  find(id: string): Pace<E> | undefined;
  /** Queues an invocation behind its function's others; a function with none waiting joins the end of the turn. */
  wait(pace: Pace<E>, entry: E): void;
  /** The functions with invocations waiting, in turn order now (one array, refilled at each call). */
  turn(): readonly Pace<E>[];
  /** After a function's turn over `list`: to the end with invocations left, out with none. Left alone when a turn
   *  taken meanwhile (pump() reached again from a step it ran) served it already. */
  served(pace: Pace<E>, list: E[]): void;
}

export function createFetchTurns<E>(): FetchTurns<E> {
  const paces = new Map<string, Pace<E>>();
  let first: Pace<E> | null = null;
  let last: Pace<E> | null = null;
  const order: Pace<E>[] = [];

  const toEnd = (pace: Pace<E>) => {
    pace.prev = last;
    pace.next = null;
    if (last === null) first = pace;
    else last.next = pace;
    last = pace;
  };
  const unlink = (pace: Pace<E>) => {
    if (pace.prev === null) first = pace.next;
    else pace.prev.next = pace.next;
    if (pace.next === null) last = pace.prev;
    else pace.next.prev = pace.prev;
    pace.prev = null;
    pace.next = null;
  };

  return {
    paceOf(id) {
      let pace = paces.get(id);
      if (!pace) paces.set(id, (pace = { id, fetching: 0, progressAt: 0, holdUntil: 0, waiting: null, prev: null, next: null }));
      return pace;
    },
    find: (id) => paces.get(id),
    wait(pace, entry) {
      if (pace.waiting === null) {
        pace.waiting = [];
        toEnd(pace);
      }
      pace.waiting.push(entry);
    },
    turn() {
      order.length = 0;
      for (let p = first; p !== null; p = p.next) order.push(p);
      return order;
    },
    served(pace, list) {
      if (pace.waiting !== list) return;
      unlink(pace);
      if (list.length > 0) toEnd(pace);
      else pace.waiting = null;
    },
  };
}
