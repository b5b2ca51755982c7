// Shape of the ingestion warnings API's answer (src/ingestion-warnings/routes.ts).
import { Type, type Static } from '@sinclair/typebox';

const Props = Type.Record(Type.String(), Type.Unknown());

export const WarningSummary = Type.Object({
  type: Type.String(),
  lastSeen: Type.String(),
  // [count, day] per day that saw the type.
  sparkline: Type.Array(Type.Tuple([Type.Integer(), Type.String()])),
  warnings: Type.Array(Type.Object({ type: Type.String(), timestamp: Type.String(), details: Props })),
  count: Type.Integer(),
});
export type WarningSummary = Static<typeof WarningSummary>;
