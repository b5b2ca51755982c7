// Shapes of the persons and groups APIs: the one request body-like input (the
// `properties` filter of the person list) and the response objects.
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

// Request: `?properties=[{"key": "plan", "value": "pro", "operator": "exact", "type": "person"}]`.
export const PersonPropertyFilters = Type.Array(Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.Unknown()),
  operator: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.Optional(Type.String()),
}));
export type PersonPropertyFilters = Static<typeof PersonPropertyFilters>;
export const checkPersonPropertyFilters = TypeCompiler.Compile(PersonPropertyFilters);

// Responses.
const Props = Type.Record(Type.String(), Type.Unknown());

export const Person = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: Props,
  created_at: Type.String(),
  is_identified: Type.Boolean(),
});
export type Person = Static<typeof Person>;

export const Group = Type.Object({
  group_type_index: Type.Integer({ minimum: 0, maximum: 4 }),
  group_key: Type.String(),
  group_properties: Props,
  created_at: Type.String(),
});
export type Group = Static<typeof Group>;

export const GroupType = Type.Object({
  group_type: Type.String(),
  group_type_index: Type.Integer({ minimum: 0, maximum: 4 }),
  name_singular: Type.Union([Type.String(), Type.Null()]),
  name_plural: Type.Union([Type.String(), Type.Null()]),
  detail_dashboard: Type.Null(),
  default_columns: Type.Null(),
  created_at: Type.String(),
});
export type GroupType = Static<typeof GroupType>;
