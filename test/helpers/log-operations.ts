// Log entries as the log hands them out (records encoded by the capture codec), holding
// events and server operations (docs/decisions/0032) in the order given, and the person
// operations themselves with numbered uuids.
import type { CapturedEvent, LogEntry, LogFrame, LogOperation } from '../../src/log/types.js';
import { encodeFrames, recordEntry } from '../../src/log/record.js';
import { captureCodec } from '../../src/capture/frames.js';
import { DELETE_PERSON, WRITE_HASH_KEY_OVERRIDES } from '../../src/persons/operations.js';

export function recordOf(seq: number, ...items: (CapturedEvent[] | LogOperation)[]): LogEntry {
  const frames: LogFrame[] = items.map((item) => (Array.isArray(item) ? captureCodec.eventsFrame(item) : captureCodec.operationFrame(item)));
  return recordEntry(seq, encodeFrames(frames), captureCodec.decode);
}

export function personOperationMaker(projectId: number) {
  let n = 0;
  const uuid = () => `00000000-0000-4000-a000-${String(++n).padStart(12, '0')}`;
  return {
    deletePerson: (personUuid: string): LogOperation => ({ uuid: uuid(), project_id: projectId, kind: DELETE_PERSON, payload: { uuid: personUuid } }),
    hashKeys: (distinctIds: string[], flagKeys: string[], hashKey: string): LogOperation => ({
      uuid: uuid(), project_id: projectId, kind: WRITE_HASH_KEY_OVERRIDES, payload: { distinct_ids: distinctIds, flag_keys: flagKeys, hash_key: hashKey },
    }),
  };
}
