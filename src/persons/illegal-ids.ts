// Distinct ids that never take part in a merge: values that betray a bug in the
// caller ("undefined", "[object Object]", ...) rather than a real user. Merging on them
// would glue unrelated people together, so PostHog refuses and warns instead.

// Refused whatever their case ("Guest", "UNDEFINED").
const ANY_CASE = ['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false'];
// Refused only as written: "NaN" is suspicious, "nan" may be a real name.
const EXACT = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

// Quoted variants come from clients that JSON-encode the id twice.
const withQuotes = (ids: string[]) => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);

const ILLEGAL_ANY_CASE = new Set(withQuotes(ANY_CASE));
const ILLEGAL_EXACT = new Set(withQuotes(EXACT));

export function isIllegalDistinctId(id: string): boolean {
  return id.trim() === '' || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id);
}
