// Shapes capture accepts, compiled once at module load.
import { Type, FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));

// Any JSON object. Type.Record(String, Unknown) says the same for parsed JSON (whose
// keys are always strings) but compiles to a regex test per key: measured at a third
// of normalization's cost on a 5-property event.
const Props = Type.Object({});

// An event that survived the name/distinct_id checks must also have these types;
// anything else is dropped as `invalid_event` (SPEC §7: never a failed request).
export const RawEvent = Type.Object({
  event: Type.String({ minLength: 1 }),
  properties: Type.Optional(Props),
  timestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  offset: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  uuid: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
  $set: Type.Optional(Type.Union([Props, Type.Null()])),
  $set_once: Type.Optional(Type.Union([Props, Type.Null()])),
});

export const BatchEnvelope = Type.Object({
  batch: Type.Array(Type.Unknown()),
  api_key: Type.Optional(Type.Unknown()),
  token: Type.Optional(Type.Unknown()),
  historical_migration: Type.Optional(Type.Boolean()),
  sent_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const checkRawEvent = TypeCompiler.Compile(RawEvent);
export const checkBatchEnvelope = TypeCompiler.Compile(BatchEnvelope);
