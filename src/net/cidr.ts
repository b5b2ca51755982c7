// IPv4 and IPv6 addresses and CIDR ranges as numbers, and whether a range holds an address
// (pure: no I/O, no node:net). An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as
// the IPv4 address it carries, as a dual-stack socket reports an IPv4 client.

// An address as its family and value: 32 bits for IPv4, 128 for IPv6.
export interface IpAddress {
  readonly v6: boolean;
  readonly value: bigint;
}

export interface CidrRange {
  readonly v6: boolean;
  // The range's first address and its prefix length.
  readonly base: bigint;
  readonly bits: number;
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const GROUP = /^[0-9a-f]{1,4}$/i;

function parseV4(text: string): bigint | null {
  const m = V4.exec(text);
  if (m === null) return null;
  let value = 0n;
  for (let i = 1; i <= 4; i++) {
    const part = m[i];
    // A leading zero is refused: some parsers read it as octal.
    if (part.length > 1 && part[0] === '0') return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  let rest = text.split('%')[0];
  let tail: bigint | null = null;
  const lastColon = rest.lastIndexOf(':');
  if (rest.includes('.', lastColon)) {
    tail = parseV4(rest.slice(lastColon + 1));
    if (tail === null) return null;
    rest = `${rest.slice(0, lastColon + 1)}0:0`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : halves[0].split(':');
  const back = halves.length === 2 ? (halves[1] === '' ? [] : halves[1].split(':')) : [];
  const missing = 8 - head.length - back.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  let value = 0n;
  for (const g of [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...back]) {
    if (!GROUP.test(g)) return null;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail !== null) value = (value & ~0xffffffffn) | tail;
  return value;
}

/** The address `text` names, or null when it names none. */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const value = parseV6(text.trim());
    if (value === null) return null;
    if (value >> 32n === 0xffffn) return { v6: false, value: value & 0xffffffffn };
    return { v6: true, value };
  }
  const value = parseV4(text.trim());
  return value === null ? null : { v6: false, value };
}

/** The range `text` names (`a.b.c.d/n`, `x::/n`, or one address), or null. */
export function parseCidr(text: string): CidrRange | null {
  const [address, prefix, extra] = text.trim().split('/');
  if (extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return null;
  const ip = text.includes(':') ? parseV6(address) : parseV4(address);
  if (ip === null) return null;
  const v6 = text.includes(':');
  const width = v6 ? 128 : 32;
  const bits = prefix === undefined ? width : Number(prefix);
  if (bits > width) return null;
  return { v6, base: ip & maskOf(bits, width), bits };
}

function maskOf(bits: number, width: number): bigint {
  return bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(width - bits);
}

/** Ranges by family, each with its mask computed once. */
export interface CidrSet {
  readonly v4: readonly { base: bigint; mask: bigint }[];
  readonly v6: readonly { base: bigint; mask: bigint }[];
}

/** Throws on a range that does not parse: the lists are written by hand. */
export function cidrSet(ranges: readonly string[]): CidrSet {
  const v4: { base: bigint; mask: bigint }[] = [];
  const v6: { base: bigint; mask: bigint }[] = [];
  for (const text of ranges) {
    const range = parseCidr(text);
    if (range === null) throw new Error(`not a CIDR range: ${text}`);
    (range.v6 ? v6 : v4).push({ base: range.base, mask: maskOf(range.bits, range.v6 ? 128 : 32) });
  }
  return { v4, v6 };
}

/** Whether a range of `set` holds `address`. */
export function inCidrSet(set: CidrSet, address: IpAddress): boolean {
  const ranges = address.v6 ? set.v6 : set.v4;
  for (const r of ranges) if ((address.value & r.mask) === r.base) return true;
  return false;
}
