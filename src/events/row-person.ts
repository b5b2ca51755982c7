// An event row's person (person_id, person_properties) read from the row's bytes without
// decoding the rest of it: the destinations read every event's row for its person only, and
// building the event's own properties there was most of that read. The row is a msgpack map
// (tables.ts: plain maps, no records); the reader walks msgpack's framing over the other
// keys' values and decodes just the two it needs, as the table's own decoder would.
// Anything else (a row written with records before plain maps, a key that is not a string)
// answers NOT_READ and the caller decodes the row whole.
import { Unpackr } from 'msgpackr';
import { rowValueRanges } from './row-fields.js';

export const NOT_READ = Symbol('not read');

export interface RowPerson {
  personId: string | null;
  // Undefined when the row keeps none (its project did not ask when it was stored).
  properties: Record<string, unknown> | undefined;
}

const decoder = new Unpackr({ useRecords: false });
const PERSON_ID = Buffer.from('person_id');
const PERSON_PROPERTIES = Buffer.from('person_properties');

// Where the row's person_id and person_properties values lie (rowValueRanges).
const NAMES = [PERSON_ID, PERSON_PROPERTIES];
const ranges = new Int32Array(2 * NAMES.length);

// The person of the row in `b` (its stored bytes), or NOT_READ.
export function rowPerson(b: Uint8Array): RowPerson | typeof NOT_READ {
  if (!rowValueRanges(b, NAMES, ranges)) return NOT_READ;
  const personId: unknown = ranges[0] < 0 ? undefined : decoder.unpack(b.subarray(ranges[0], ranges[1]));
  const properties: unknown = ranges[2] < 0 ? undefined : decoder.unpack(b.subarray(ranges[2], ranges[3]));
  if (personId !== null && typeof personId !== 'string') return NOT_READ;
  return { personId, properties: properties as RowPerson['properties'] };
}
