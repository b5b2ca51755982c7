// IPv4 addresses, parsed as ClickHouse's parseIPv4 reads them: four groups of 1 to 4 ASCII
// digits (leading zeros allowed), each at most 255, joined by dots, nothing else around.
import { sql, type Sql } from '../../sql.js';
import { expr, fail, num, str, type Expr } from '../expr.js';
import { catalogue } from './catalogue.js';
import { joinedBy } from './helpers.js';

const { functions, define } = catalogue();
export { functions as ipAddresses };

const ipv4Number = (a: Expr) => {
  const s = str(a);
  const octets = sql`list_transform(string_split(${s}, '.'), lambda hq_o: CAST(hq_o AS BIGINT))`;
  return sql`(CASE WHEN regexp_full_match(${s}, '\\d{1,4}(\\.\\d{1,4}){3}') AND list_max(${octets}) <= 255 THEN (${octets})[1] * 16777216 + (${octets})[2] * 65536 + (${octets})[3] * 256 + (${octets})[4] END)`;
};
// NULL stays NULL (concat_ws would skip it).
const wrapped = (inner: Sql) => sql`(${inner})`;
const ipv4Text = (n: Sql) => wrapped(joinedBy([sql`${n} // 16777216`, sql`${n} // 65536 % 256`, sql`${n} // 256 % 256`, sql`${n} % 256`].map((x) => sql`CAST(${x} AS VARCHAR)`), sql`'.'`));
const invalidIp = (a: Expr, as: Sql) => sql`(CASE WHEN ${a.sql} IS NULL THEN NULL ELSE coalesce(${as}, error('Invalid IPv4 value')) END)`;
define('IP addresses', 'isIPv4String', 1, 1, ([a]) => expr(sql`(CASE WHEN ${a.sql} IS NULL THEN NULL ELSE ${ipv4Number(a)} IS NOT NULL END)`, 'Bool', [a]));
define('IP addresses', 'IPv4StringToNum', 1, 1, ([a]) => expr(invalidIp(a, ipv4Number(a)), 'UInt', [a]));
define('IP addresses', 'IPv4StringToNumOrNull', 1, 1, ([a]) => expr(ipv4Number(a), 'UInt', [a], { nullable: true }));
define('IP addresses', 'IPv4StringToNumOrDefault', 1, 1, ([a]) => expr(sql`coalesce(${ipv4Number(a)}, 0)`, 'UInt', [a], { nullable: false }));
// An IPv4 value shown as its dotted text (leading zeros dropped).
define('IP addresses', 'toIPv4', 1, 1, ([a]) => expr(invalidIp(a, ipv4Text(ipv4Number(a))), 'String', [a]));
define('IP addresses', 'toIPv4OrNull', 1, 1, ([a]) => expr(ipv4Text(ipv4Number(a)), 'String', [a], { nullable: true }));
define('IP addresses', 'toIPv4OrDefault', 1, 1, ([a]) => expr(sql`coalesce(${ipv4Text(ipv4Number(a))}, '0.0.0.0')`, 'String', [a], { nullable: false }));
define('IP addresses', 'IPv4NumToString', 1, 1, ([n]) => {
  const v = sql`CAST(${num(n)} AS BIGINT)`;
  return expr(ipv4Text(sql`(CASE WHEN ${v} BETWEEN 0 AND 4294967295 THEN ${v} ELSE error('IPv4NumToString() takes a UInt32') END)`), 'String', [n]);
});
// isIPAddressInRange(address, 'a.b.c.d/prefix'): as PostHog calls it, an address that is not
// IPv4 (IPv6, NULL, not an address) matches no IPv4 range. IPv6 ranges are refused.
define('IP addresses', 'isIPAddressInRange', 2, 2, ([a, range], fx) => {
  if (typeof range.constant?.value === 'string' && range.constant.value.includes(':')) fail('isIPAddressInRange(): IPv6 ranges are not supported, only IPv4 ones such as \'10.0.0.0/8\'', fx.node);
  const r = str(range);
  const prefix = sql`TRY_CAST(regexp_extract(${r}, '/(\\d{1,2})$', 1) AS BIGINT)`;
  const network = ipv4Number(expr(sql`regexp_extract(${r}, '^([^/]*)/', 1)`, 'String'));
  const valid = sql`(CASE WHEN ${prefix} BETWEEN 0 AND 32 AND ${network} IS NOT NULL THEN ${prefix} ELSE error('isIPAddressInRange() takes an IPv4 range such as 10.0.0.0/8') END)`;
  return expr(sql`coalesce(${ipv4Number(a)} >> (32 - ${valid}) = ${network} >> (32 - ${valid}), false)`, 'Bool', [a, range], { nullable: false });
});
