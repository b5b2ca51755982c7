// How the server puts person operations (./operations.ts) into the event log: one frame
// each, appended like a capture request (group-committed, durable when the append
// resolves). The uuid, the only value drawn at random, is drawn here, on the node that
// took the request, and travels in the operation.
import { randomUUID } from 'node:crypto';
import type { EventLog, LogCodec, LogOperation } from '../log/types.js';
import { DELETE_PERSON, WRITE_HASH_KEY_OVERRIDES, type DeletePerson, type HashKeyOverrides } from './operations.js';

// How long a deletion waits for this node's event store to apply it once it is durable.
// It normally takes one consumer turn (milliseconds); an event store catching up with a
// backlog may take longer, and then the deletion answers without waiting further (it is
// durable and will be applied in its place).
export const DELETE_APPLIED_WITHIN_MS = 10_000;
const POLL_MS = 5;

export interface PersonOperations {
  // Resolves once the deletion is durable in the log and, within `appliedWithinMs`, applied
  // by this node's event store: true when it was, false when the wait ran out.
  deletePerson(projectId: number, uuid: string): Promise<boolean>;
  // Records `hashKey` (the anonymous distinct id a request brought) as the hash key of
  // each flag for the persons of `distinctIds` that have none for it yet, where the
  // operation lands in the log. Resolves once durable; nothing waits for it to apply.
  writeHashKeyOverrides(projectId: number, distinctIds: readonly string[], flagKeys: readonly string[], hashKey: string): Promise<void>;
}

export interface PersonOperationsDeps {
  log: EventLog;
  frame: LogCodec['operationFrame'];
  // Whether this node's event store has applied the operation `uuid` (it records an
  // operation's uuid where it records an event's, in the transaction that applies it:
  // src/events/query.ts uuidRecorded).
  applied: (projectId: number, uuid: string) => boolean;
  appliedWithinMs?: number;
}

export function personOperations({ log, frame, applied: recorded, appliedWithinMs = DELETE_APPLIED_WITHIN_MS }: PersonOperationsDeps): PersonOperations {
  const append = (projectId: number, kind: string, payload: unknown): Promise<LogOperation> => {
    const op: LogOperation = { uuid: randomUUID(), project_id: projectId, kind, payload };
    return log.appendFrame(frame(op)).then(() => op);
  };
  const applied = (op: LogOperation) => recorded(op.project_id, op.uuid);
  return {
    async deletePerson(projectId, uuid) {
      const op = await append(projectId, DELETE_PERSON, { uuid } satisfies DeletePerson);
      const deadline = Date.now() + appliedWithinMs;
      while (!applied(op)) {
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return true;
    },
    async writeHashKeyOverrides(projectId, distinctIds, flagKeys, hashKey) {
      const payload: HashKeyOverrides = { distinct_ids: [...distinctIds], flag_keys: [...flagKeys], hash_key: hashKey };
      await append(projectId, WRITE_HASH_KEY_OVERRIDES, payload);
    },
  };
}
