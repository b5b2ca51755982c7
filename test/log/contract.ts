// The event log contract: every EventLog / LogReader implementation passes this
// one suite (the LMDB log in lmdb-log.test.ts, the NATS log in nats-log.test.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventLog, LogEntry, LogOperation, LogReader, PlacedOperation } from '../../src/log/types.js';
import { encodeRecord, frameEvents, operationFrame } from '../../src/capture/frames.js';
import { requestFrame, batchRequest } from '../helpers/capture-frames.js';
import { logEvent, logEvents } from '../helpers/log-events.js';
import { readEvents, readUntil, uuidsOf, eventCount } from '../helpers/log-reading.js';

// One empty log, fresh for each test.
export interface LogSubject {
  openLog(): Promise<EventLog>;
  openReader(): Promise<LogReader>;
  // Arguments for test/helpers/log-writer.js to append to this same log.
  writerArgs: string[];
  // Whatever else a crash takes down besides the writer's process (NATS: the server).
  crash(): Promise<void>;
  // Closes everything the subject opened and deletes the log.
  dispose(): Promise<void>;
}

export interface LogImplementation {
  name: string;
  // The most bytes one entry's record may take (NATS: the server's max_payload).
  maxEntryBytes: number;
  setup(): Promise<void>;
  fresh(): Promise<LogSubject>;
  teardown(): Promise<void>;
}

const WRITER = fileURLToPath(new URL('../helpers/log-writer.js', import.meta.url));
const CRASH_AFTER_ACKS = 500;
// Killed this long after its first acknowledgement if it has not reached CRASH_AFTER_ACKS.
const CRASH_AFTER_MS = 2000;

// Runs the writer child until it has acknowledged enough events (or, on a slow machine,
// for a while after its first acknowledgement), SIGKILLs it and returns the uuids it
// reported as acknowledged.
async function ackedUntilKilled(args: string[]): Promise<Set<string>> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked = new Set<string>();
  let stderr = '';
  let partial = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const kill = () => { clearTimeout(timer); child.kill('SIGKILL'); };
    child.stdout!.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line && line !== 'ready') acked.add(line);
      if (acked.size >= CRASH_AFTER_ACKS) kill();
      else if (acked.size > 0) timer ??= setTimeout(kill, CRASH_AFTER_MS);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`log writer exited by itself (code ${code}): ${stderr}`));
    });
  });
  return acked;
}

export function runLogContract(impl: LogImplementation): void {
  const s = suite(`event log contract: ${impl.name}`);
  let subject: LogSubject | null = null;
  s.before(() => impl.setup());
  s.after(() => impl.teardown());
  s.before.each(async () => { subject = await impl.fresh(); });
  s.after.each(async () => {
    await subject?.dispose();
    subject = null;
  });
  // Set by before.each for every test that runs.
  const current = () => subject!;

  s('an empty log has lastSeq 0 for writer and reader', async () => {
    const log = await current().openLog();
    const reader = await current().openReader();
    assert.is(log.lastSeq(), 0);
    assert.is(await reader.lastSeq(), 0);
  });

  s('firstSeq is the oldest record held: none for an empty log, the first once appended to', async () => {
    const log = await current().openLog();
    const reader = await current().openReader();
    assert.is(await reader.firstSeq(), 0);
    await log.append([logEvent()]);
    await log.append([logEvent()]);
    assert.is(await reader.firstSeq(), 1);
    assert.is(await reader.lastSeq(), 2);
  });

  s('an append resolves once its events are in the log: counted in lastSeq and readable', async () => {
    const log = await current().openLog();
    const events = logEvents(3);
    await log.append(events);
    assert.ok(log.lastSeq() >= 1);
    const reader = await current().openReader();
    assert.is(await reader.lastSeq(), log.lastSeq());
    const entries = await readEvents(reader, 0, 3);
    assert.equal(uuidsOf(entries), events.map((e) => e.uuid));
    assert.is(entries[entries.length - 1].seq, log.lastSeq());
  });

  s('concurrent appends share commits, and the log keeps the order the appends were made in', async () => {
    const log = await current().openLog();
    const events = logEvents(200);
    await Promise.all(events.map((e) => log.append([e])));
    const entries = await readEvents(await current().openReader(), 0, 200);
    assert.equal(uuidsOf(entries), events.map((e) => e.uuid));
    assert.ok(entries.length < 20, `200 concurrent appends took ${entries.length} commits`);
  });

  s('readers get entries in increasing sequence, starting after the position they give', async () => {
    const log = await current().openLog();
    const [a, b, c] = [logEvent(), logEvent(), logEvent()];
    for (const e of [a, b, c]) await log.append([e]);
    const reader = await current().openReader();
    const all = await readEvents(reader, 0, 3);
    assert.equal(uuidsOf(all), [a.uuid, b.uuid, c.uuid]);
    for (let i = 1; i < all.length; i++) assert.ok(all[i].seq > all[i - 1].seq);
    const afterA = all.find((e) => e.events.some((ev) => ev.uuid === a.uuid))!.seq;
    assert.equal(uuidsOf(await readEvents(reader, afterA, 2)), [b.uuid, c.uuid]);
  });

  s('a restarted writer continues the sequence, and a reader resumes from a stored position', async () => {
    const first = await current().openLog();
    await first.append(logEvents(2));
    await first.append(logEvents(2));
    const stored = first.lastSeq();
    await first.close();
    const second = await current().openLog();
    assert.is(second.lastSeq(), stored);
    const later = logEvent();
    await second.append([later]);
    assert.ok(second.lastSeq() > stored);
    const entries = await readEvents(await current().openReader(), stored, 1);
    assert.equal(uuidsOf(entries), [later.uuid]);
    assert.ok(entries[0].seq > stored);
  });

  s('a group bigger than one entry may hold arrives whole, in order, in entries within the limit', async () => {
    const log = await current().openLog();
    // About 3 MB: three times NATS's default max_payload.
    const events = logEvents(40, 80_000);
    await log.append(events);
    const entries = await readEvents(await current().openReader(), 0, events.length, 10_000);
    assert.equal(entries.flatMap((e) => e.events), events);
    for (const entry of entries) assert.ok(encodeRecord(entry.events).length <= impl.maxEntryBytes);
  });

  s('capture frames and event appends share commits in order; every read of the log gives the same events', async () => {
    const log = await current().openLog();
    const before = logEvent();
    const frames = [requestFrame(batchRequest(5)), requestFrame({ api_key: 'k', event: 'single', distinct_id: 'u' })];
    const after = logEvent();
    await Promise.all([log.append([before]), log.appendFrame(frames[0]), log.appendFrame(frames[1]), log.append([after])]);
    const expected = [before, ...frameEvents(frames[0]), ...frameEvents(frames[1]), after];
    const first = (await readEvents(await current().openReader(), 0, 8)).flatMap((e) => e.events);
    const again = (await readEvents(await current().openReader(), 0, 8)).flatMap((e) => e.events);
    assert.equal(first, expected);
    assert.equal(again, first);
  });

  s('server operations share commits with events, in order: only a reader asking for operations gets them, in their places', async () => {
    const log = await current().openLog();
    const [a, b] = [logEvent(), logEvent()];
    const op = (n: number): LogOperation => ({ uuid: `00000000-0000-4000-9000-00000000000${n}`, project_id: 1, kind: 'test.op', payload: { n, ids: ['x', 'y'] } });
    await Promise.all([log.append([a]), log.appendFrame(operationFrame(op(1))), log.append([b]), log.appendFrame(operationFrame(op(2)))]);
    // Events and operations of each entry, as the event store reads them.
    const both = (entries: LogEntry[]) => entries.flatMap((e) => {
      const ops: PlacedOperation[] = [];
      const events = e.readEvents!([], ops);
      const out: unknown[] = [...events];
      for (const { at, op: o } of [...ops].reverse()) out.splice(at, 0, o);
      return out;
    });
    const entries = await readUntil(await current().openReader(), 0, (es) => both(es).length >= 4);
    assert.equal(both(entries), [a, op(1), b, op(2)]);
    // Every other reader sees the events alone.
    assert.equal(entries.flatMap((e) => e.events), [a, b]);
    assert.equal(entries.flatMap((e) => e.readEvents!([])), [a, b]);
  });

  s('a capture frame bigger than one entry may hold arrives whole, as its normalized events, in entries within the limit', async () => {
    const log = await current().openLog();
    // About 3 MB of request: three times NATS's default max_payload.
    const frame = requestFrame(batchRequest(40, 80_000));
    await log.appendFrame(frame);
    const entries = await readEvents(await current().openReader(), 0, 40, 10_000);
    assert.equal(entries.flatMap((e) => e.events), frameEvents(frame));
    for (const entry of entries) assert.ok(encodeRecord(entry.events).length <= impl.maxEntryBytes);
  });

  s('close waits for appends still in flight: every one resolves and is in the log', async () => {
    const log = await current().openLog();
    const events = logEvents(100);
    const appends = events.map((e) => log.append([e]));
    await log.close();
    await Promise.all(appends);
    const entries = await readEvents(await current().openReader(), 0, 100);
    assert.is(eventCount(entries), 100);
  });

  s('every acknowledged event survives the writer being killed mid-load (SIGKILL)', async () => {
    const acked = await ackedUntilKilled(current().writerArgs);
    assert.ok(acked.size > 0, 'the writer acknowledged nothing before it was killed');
    await current().crash();
    const entries = await readUntil(await current().openReader(), 0,
      (es) => { const seen = new Set(uuidsOf(es)); return [...acked].every((u) => seen.has(u)); }, 10_000);
    const seen = new Set(uuidsOf(entries));
    const lost = [...acked].filter((u) => !seen.has(u));
    assert.is(lost.length, 0, `${lost.length} of ${acked.size} acknowledged events lost`);
  });

  s.run();
}
