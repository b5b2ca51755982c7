// URLs, read as ClickHouse's URL functions read them ('' where the part is absent): the host and
// its parts, the path, the query string and its parameters, the fragment, hierarchies, encoding.
import { raw, sql, text, type Sql } from '../../sql.js';
import { expr, num, str, type Expr } from '../expr.js';
import { catalogue } from './catalogue.js';
import { constantText } from './helpers.js';

const { functions, define } = catalogue();
export { functions as urls };

define('string', 'domain', 1, 1, ([a]) => expr(sql`nullif(regexp_extract(${str(a)}, '^(?:[^/@:]+://)?(?:[^/@]+@)?([^/:?#]+)', 1), '')`, 'String', [a], { nullable: true }));
define('string', 'protocol', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^([a-zA-Z][a-zA-Z0-9+.-]*)://', 1)`, 'String', [a]));
define('string', 'path', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*)?([^?#]*)', 1)`, 'String', [a]));
define('string', 'queryString', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '\\?([^#]*)', 1)`, 'String', [a]));
define('string', 'fragment', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '#(.*)$', 1)`, 'String', [a]));
define('string', 'cutQueryString', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '\\?[^#]*', '')`, 'String', [a]));
define('string', 'cutFragment', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '#.*$', '')`, 'String', [a]));
define('string', 'cutQueryStringAndFragment', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '[?#].*$', '')`, 'String', [a]));
// The first value of a query parameter, as written in the URL (not decoded). As ClickHouse's,
// parameters are read from the first '?' or '#' on, the fragment's too.
define('string', 'extractURLParameter', 2, 2, ([a, name], fx) => {
  const key = constantText(name, fx, 'the parameter name').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expr(sql`regexp_extract(regexp_extract(${str(a)}, '[?#].*$'), ${text(`[?&#]${key}=([^&#]*)`)}, 1)`, 'String', [a]);
});
const HOST = '^(?:[^/@:]+://)?(?:[^/@]+@)?([^/:?#]+)';
define('string', 'domainWithoutWWW', 1, 1, ([a]) => expr(sql`regexp_replace(regexp_extract(${str(a)}, ${text(HOST)}, 1), '^www\\.', '')`, 'String', [a]));
define('string', 'topLevelDomain', 1, 1, ([a]) => expr(sql`regexp_extract(regexp_extract(${str(a)}, ${text(HOST)}, 1), '\\.([^.]+)\\.?$', 1)`, 'String', [a]));
define('string', 'netloc', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//([^/?#]*)', 1)`, 'String', [a]));
// The port, or the default given (0 without one).
define('string', 'port', 1, 2, ([a, dflt]) => expr(sql`coalesce(TRY_CAST(nullif(regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//(?:[^/?#@]*@)?[^/?#:]*:(\\d+)', 1), '') AS BIGINT), ${dflt === undefined ? raw('0') : num(dflt)})`, 'UInt', [a]));
define('string', 'pathFull', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*)?(.*)$', 1)`, 'String', [a]));
define('string', 'queryStringAndFragment', 1, 1, ([a]) => expr(sql`regexp_extract(${str(a)}, '[?#](.*)$', 1)`, 'String', [a]));
define('string', 'cutWWW', 1, 1, ([a]) => expr(sql`regexp_replace(${str(a)}, '^((?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//)www\\.', '\\1')`, 'String', [a]));
// The query string's (and fragment's) name=value pairs, and their names, as written; read as
// ClickHouse's tokenizer reads them: from the first '?' or '#', split at '&' and '#', a '?'
// inside a name starting it afresh, a last name without '=' or a separator dropped.
const URL_PARAMETER = '[^=&#?]*(?:=[^&#]*[&#]?|[&#])';
const urlParameters = (a: Expr) =>
  sql`list_transform(regexp_extract_all(regexp_extract(${str(a)}, '[?#](.*)$', 1), ${text(URL_PARAMETER)}), lambda hq_p: regexp_replace(hq_p, '[&#]$', ''))`;
define('string', 'extractURLParameters', 1, 1, ([a]) => expr(urlParameters(a), 'Array', [a]));
define('string', 'extractURLParameterNames', 1, 1, ([a]) => expr(sql`list_transform(${urlParameters(a)}, lambda hq_p: regexp_extract(hq_p, '^[^=]*'))`, 'Array', [a]));
// URLHierarchy and URLPathHierarchy, as ClickHouse's tokenizers cut them: only for a scheme of
// the letters b-y and digits 1-8 (its exclusive bounds) followed by '://' and something; then the
// URL up to and including each '/', '?' or '#' after a run of other characters, runs of
// separators counting as one. URLHierarchy starts with the scheme and host (or answers the whole
// text without such a scheme), URLPathHierarchy with the path (or answers nothing).
const HIER_PART = '[/?#]*[^/?#]+[/?#]?';
const prefixes = (first: Sql, tail: Sql) => {
  const chunks = sql`regexp_extract_all(${tail}, ${text(HIER_PART)})`;
  return sql`list_transform(range(1, len(${chunks}) + 1), lambda hq_i: ${first} || array_to_string(list_slice(${chunks}, 1, hq_i), ''))`;
};
const hierarchical = (s: Sql) => sql`regexp_matches(${s}, '^[b-y1-8]+://.')`;
define('string', 'URLHierarchy', 1, 1, ([a]) => {
  const s = str(a);
  const first = sql`regexp_extract(${s}, '^[b-y1-8]+://[^/?#]*[/?#]?')`;
  return expr(sql`(CASE WHEN ${s} = '' THEN [] WHEN NOT ${hierarchical(s)} THEN [${s}] ELSE list_prepend(${first}, ${prefixes(first, sql`substr(${s}, length(${first}) + 1)`)}) END)`, 'Array', [a]);
});
define('string', 'URLPathHierarchy', 1, 1, ([a]) => {
  const s = str(a);
  const path = sql`substr(${s}, length(regexp_extract(${s}, '^[b-y1-8]+://[^/?#]*')) + 1)`;
  return expr(sql`(CASE WHEN ${hierarchical(s)} THEN ${prefixes(sql`substr(${path}, 1, 1)`, sql`substr(${path}, 2)`)} ELSE [] END)`, 'Array', [a]);
});
define('string', 'decodeURLComponent', 1, 1, ([a]) => expr(sql`url_decode(${str(a)})`, 'String', [a]));
define('string', 'encodeURLComponent', 1, 1, ([a]) => expr(sql`url_encode(${str(a)})`, 'String', [a]));
// Forms: a space is '+'.
define('string', 'encodeURLFormComponent', 1, 1, ([a]) => expr(sql`replace(url_encode(${str(a)}), '%20', '+')`, 'String', [a]));
// Forms: '+' is a space.
define('string', 'decodeURLFormComponent', 1, 1, ([a]) => expr(sql`url_decode(replace(${str(a)}, '+', ' '))`, 'String', [a]));
