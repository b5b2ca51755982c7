// JSON values as clients send them: the one test for "a JSON object" (not null, not an
// array), shared by capture, /decide, the flag and cohort APIs and person processing.
export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
