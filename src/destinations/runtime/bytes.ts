// What an invocation carries between the Hog workers, the destinations consumer and the
// destinations store as bytes: its globals (the event, person, groups, inputs: kilobytes)
// and a suspended program's state. Serialized once where they are made (V8's own format,
// the one structured clone uses, faster here than msgpack both ways) and handed on as they
// are: copying bytes into a message or a store record costs a memcpy, where an object is
// walked again at every hop.
import { deserialize, serialize } from 'node:v8';

export function pack(value: unknown): Uint8Array {
  return serialize(value);
}

// The value packed, or the value itself when it is not bytes (invocations queued before
// their globals were bytes, and tests that hand objects).
export function unpack<T>(value: unknown): T {
  return (value instanceof Uint8Array ? deserialize(value) : value) as T;
}
