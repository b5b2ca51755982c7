// An event row's person (person_id, person_properties) read from the row's bytes without
// decoding the rest of it: the destinations read every event's row for its person only, and
// building the event's own properties there was most of that read. The row is a msgpack map
// (tables.ts: plain maps, no records); the reader walks msgpack's framing over the other
// keys' values and decodes just the two it needs, as the table's own decoder would.
// Anything else (a row written with records before plain maps, a key that is not a string)
// answers NOT_READ and the caller decodes the row whole.
import { Unpackr } from 'msgpackr';

export const NOT_READ = Symbol('not read');

export interface RowPerson {
  personId: string | null;
  // Undefined when the row keeps none (its project did not ask when it was stored).
  properties: Record<string, unknown> | undefined;
}

const decoder = new Unpackr({ useRecords: false });
const PERSON_ID = Buffer.from('person_id');
const PERSON_PROPERTIES = Buffer.from('person_properties');

// The offset just past the value that starts at `at`; -1 for a byte no msgpack value starts
// with (0xc1).
export function skipValue(b: Uint8Array, at: number): number {
  let pending = 1;
  while (pending > 0) {
    pending--;
    const t = b[at];
    if (t < 0x80 || t >= 0xe0) at += 1;
    else if (t < 0x90) (pending += 2 * (t & 0x0f)), (at += 1);
    else if (t < 0xa0) (pending += t & 0x0f), (at += 1);
    else if (t < 0xc0) at += 1 + (t & 0x1f);
    else {
      switch (t) {
        case 0xc0: case 0xc2: case 0xc3: at += 1; break;
        case 0xc4: case 0xd9: at += 2 + b[at + 1]; break;
        case 0xc5: case 0xda: at += 3 + u16(b, at + 1); break;
        case 0xc6: case 0xdb: at += 5 + u32(b, at + 1); break;
        case 0xc7: at += 3 + b[at + 1]; break;
        case 0xc8: at += 4 + u16(b, at + 1); break;
        case 0xc9: at += 6 + u32(b, at + 1); break;
        case 0xca: case 0xce: case 0xd2: at += 5; break;
        case 0xcb: case 0xcf: case 0xd3: at += 9; break;
        case 0xcc: case 0xd0: at += 2; break;
        case 0xcd: case 0xd1: at += 3; break;
        case 0xd4: at += 3; break;
        case 0xd5: at += 4; break;
        case 0xd6: at += 6; break;
        case 0xd7: at += 10; break;
        case 0xd8: at += 18; break;
        case 0xdc: pending += u16(b, at + 1); at += 3; break;
        case 0xdd: pending += u32(b, at + 1); at += 5; break;
        case 0xde: pending += 2 * u16(b, at + 1); at += 3; break;
        case 0xdf: pending += 2 * u32(b, at + 1); at += 5; break;
        default: return -1;
      }
    }
  }
  return at;
}

function u16(b: Uint8Array, at: number): number {
  return (b[at] << 8) | b[at + 1];
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];
}

// Whether the string key of `length` bytes at `at` is `name`.
function keyIs(b: Uint8Array, at: number, length: number, name: Buffer): boolean {
  if (length !== name.length) return false;
  for (let i = 0; i < length; i++) if (b[at + i] !== name[i]) return false;
  return true;
}

// The person of the row in `b` (its stored bytes), or NOT_READ.
export function rowPerson(b: Uint8Array): RowPerson | typeof NOT_READ {
  const t = b[0];
  let pairs: number;
  let at: number;
  if (t >= 0x80 && t < 0x90) (pairs = t & 0x0f), (at = 1);
  else if (t === 0xde) (pairs = u16(b, 1)), (at = 3);
  else if (t === 0xdf) (pairs = u32(b, 1)), (at = 5);
  else return NOT_READ;
  let personId: unknown;
  let properties: unknown;
  for (let i = 0; i < pairs; i++) {
    const k = b[at];
    let length: number;
    if (k >= 0xa0 && k < 0xc0) (length = k & 0x1f), (at += 1);
    else if (k === 0xd9) (length = b[at + 1]), (at += 2);
    else return NOT_READ;
    const isId = keyIs(b, at, length, PERSON_ID);
    const isProperties = !isId && keyIs(b, at, length, PERSON_PROPERTIES);
    at += length;
    const end = skipValue(b, at);
    if (end < 0 || end > b.length) return NOT_READ;
    if (isId) personId = decoder.unpack(b.subarray(at, end));
    else if (isProperties) properties = decoder.unpack(b.subarray(at, end));
    at = end;
  }
  if (personId !== null && typeof personId !== 'string') return NOT_READ;
  return { personId, properties: properties as RowPerson['properties'] };
}
