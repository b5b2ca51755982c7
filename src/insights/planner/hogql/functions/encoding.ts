// Digests and encodings: hashes, hex, base64, XML escapes.
import { raw, sql } from '../../sql.js';
import { expr, str } from '../expr.js';
import { catalogue } from './catalogue.js';

const { functions, define } = catalogue();
export { functions as encoding };

// ClickHouse's MD5/SHA* answer the digest's bytes (FixedString),
// read as text by hex(); PostHog's lowercase md5(x) is hex(MD5(x)), upper-case hex text. A
// value that is not UTF-8 text comes back as its bytes' hex, as PostHog's renderer writes it.
for (const [name, duck] of [['MD5', 'md5'], ['SHA1', 'sha1'], ['SHA256', 'sha256']] as const) {
  define('hashing and encoding', name, 1, 1, ([a]) => expr(sql`unhex(${raw(duck)}(${str(a)}))`, 'String', [a]));
}
define('hashing and encoding', 'md5', 1, 1, ([a]) => expr(sql`upper(md5(${str(a)}))`, 'String', [a]));
// Integers in whole bytes, as ClickHouse's hex(1) = '01'; text and digests byte by byte.
define('hashing and encoding', 'hex', 1, 1, ([a]) => {
  if (a.type !== 'Int' && a.type !== 'UInt') return expr(sql`hex(${a.sql})`, 'String', [a]);
  return expr(sql`(CASE WHEN length(hex(${a.sql})) % 2 = 1 THEN '0' || hex(${a.sql}) ELSE hex(${a.sql}) END)`, 'String', [a]);
});
define('hashing and encoding', 'unhex', 1, 1, ([a]) => expr(sql`unhex(${str(a)})`, 'String', [a]));
define('string', 'base64Encode', 1, 1, ([a]) => expr(sql`to_base64(encode(${str(a)}))`, 'String', [a]));
define('string', 'base64Decode', 1, 1, ([a]) => expr(sql`decode(from_base64(${str(a)}))`, 'String', [a]));
define('string', 'tryBase64Decode', 1, 1, ([a]) => expr(sql`coalesce(try(decode(from_base64(${str(a)}))), '')`, 'String', [a]));
// The five characters XML escapes, & first.
define('string', 'encodeXMLComponent', 1, 1, ([a]) =>
  expr(sql`replace(replace(replace(replace(replace(${str(a)}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&apos;')`, 'String', [a]));
