// PostHog's own functions.
import { raw, sql, texts } from '../../sql.js';
import { expr, str, tupleSql } from '../expr.js';
import { catalogue } from './catalogue.js';

const { functions, define } = catalogue();
export { functions as posthog };

// PostHog's own: listed (and hinted at) here, compiled by the compilers themselves with the
// query's resolved actions (compile.ts), which calls no build.
define('PostHog', 'matchesAction', 1, 1, () => {
  throw new Error('matchesAction is compiled with the query\'s actions, not by the catalogue');
});

// PostHog's sortableSemVer: the leading dotted numbers of a version as integers, to order by.
define('PostHog', 'sortableSemVer', 1, 1, ([v]) =>
  expr(sql`list_transform(string_split(regexp_extract(coalesce(${str(v)}, ''), '(\\d+(\\.\\d+)+)', 1), '.'), lambda hq_part: coalesce(TRY_CAST(hq_part AS BIGINT), 0))`, 'Array', [v], { nullable: false }));

// HogQLX tags, as PostHog expands them: a tuple the query's reader draws (a sparkline, a
// button to the session's recording). recording_button's status defaults to the event's
// $recording_status (the compiler adds that argument, compile.ts).
define('PostHog', 'sparkline', 1, 2, ([data, labels]) => {
  const parts = [sql`'__hx_tag'`, sql`'Sparkline'`, sql`'data'`, data.sql];
  if (labels !== undefined) parts.push(sql`'labels'`, labels.sql);
  return expr(tupleSql(parts), 'Tuple', [data], { nullable: false });
});
define('PostHog', 'recording_button', 1, 2, ([session, status]) =>
  expr(tupleSql([sql`'__hx_tag'`, sql`'RecordingButton'`, sql`'sessionId'`, session.sql, sql`'recordingStatus'`, status === undefined ? raw('NULL') : status.sql]), 'Tuple', [session], { nullable: false }));

// ISO 639-1 codes and their English names, from the ICU data Node carries (PostHog maps the
// same codes to English names; a code it does not know is 'Unknown').
const LANGUAGES: { codes: string[]; names: string[] } = (() => {
  const shown = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
  const codes: string[] = [];
  const names: string[] = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (const a of letters) {
    for (const b of letters) {
      const name = shown.of(a + b);
      if (name !== undefined && name !== a + b) {
        codes.push(a + b);
        names.push(name);
      }
    }
  }
  return { codes, names };
})();
define('PostHog', 'languageCodeToName', 1, 1, ([code]) =>
  expr(sql`coalesce((${texts(LANGUAGES.names)})[list_position(${texts(LANGUAGES.codes)}, ${str(code)})], 'Unknown')`, 'String', [code], { nullable: false }));
