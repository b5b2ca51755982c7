// Which addresses a hog function's fetch may reach. Only public unicast addresses: never
// loopback, private, link-local, shared (CGNAT), multicast, documentation, benchmarking
// or reserved ranges (IANA's special-purpose registries), and for IPv6 also the forms
// that carry an IPv4 address (mapped, NAT64, 6to4), judged by that address. The operator
// may allow more (HEDGEROW_HOG_FETCH_ALLOW: CIDRs, single addresses and host names),
// so a destination can reach a service on the private network on purpose.
import { BlockList, isIP } from 'node:net';

export interface AddressPolicy {
  // Host names (lower case) whose every address is allowed.
  readonly hosts: ReadonlySet<string>;
  readonly allowed: BlockList;
  // Whether anything at all was allowed beyond the public internet.
  readonly allowsMore: boolean;
}

// [address, prefix] of each range fetch refuses.
const REFUSED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const REFUSED_V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10],
  ['ff00::', 8],
];

const refused = new BlockList();
for (const [a, p] of REFUSED_V4) refused.addSubnet(a, p, 'ipv4');
for (const [a, p] of REFUSED_V6) refused.addSubnet(a, p, 'ipv6');

export class AllowListError extends Error {}

// Parses the operator's list: comma- or space-separated CIDRs, addresses and host names.
export function parseAddressPolicy(list: string): AddressPolicy {
  const hosts = new Set<string>();
  const allowed = new BlockList();
  let allowsMore = false;
  for (const item of list.split(/[\s,]+/).filter(Boolean)) {
    allowsMore = true;
    const [address, prefix, extra] = item.split('/');
    const family = isIP(address);
    if (family !== 0) {
      const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
      if (extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128) || (prefix !== undefined && !/^\d+$/.test(prefix))) {
        throw new AllowListError(`HEDGEROW_HOG_FETCH_ALLOW: "${item}" is not a valid CIDR`);
      }
      allowed.addSubnet(address, bits, family === 4 ? 'ipv4' : 'ipv6');
    } else if (prefix === undefined && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(item)) {
      hosts.add(item.toLowerCase().replace(/\.$/, ''));
    } else {
      throw new AllowListError(`HEDGEROW_HOG_FETCH_ALLOW: "${item}" is neither a CIDR, an address nor a host name`);
    }
  }
  return { hosts, allowed, allowsMore };
}

export const PUBLIC_ONLY: AddressPolicy = parseAddressPolicy('');

// The IPv4 address an IPv6 address stands for, when it is one of the forms carrying one.
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const groups = expandV6(lower);
  if (groups === null) return null;
  const fromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64 well-known prefix).
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return fromGroups(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return fromGroups(groups[6], groups[7]);
  // 2002:AABB:CCDD::/48 (6to4).
  if (groups[0] === 0x2002) return fromGroups(groups[1], groups[2]);
  return null;
}

function expandV6(address: string): number[] | null {
  let text = address.split('%')[0];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  if (text.includes('::') ? missing < 0 : missing !== 0) return null;
  const all = [...headGroups, ...new Array<string>(text.includes('::') ? missing : 0).fill('0'), ...tailGroups];
  return all.map((g) => parseInt(g, 16));
}

// Why `address` may not be fetched, or null when it may.
export function refusal(address: string, policy: AddressPolicy, host: string | null = null): string | null {
  if (host !== null && policy.hosts.has(host.toLowerCase().replace(/\.$/, ''))) return null;
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const v4 = family === 6 ? embeddedV4(address) : address;
  if (v4 !== null) {
    if (policy.allowed.check(v4, 'ipv4') || (family === 6 && policy.allowed.check(address, 'ipv6'))) return null;
    return refused.check(v4, 'ipv4') ? `${address} is not a public address` : null;
  }
  if (policy.allowed.check(address, 'ipv6')) return null;
  return refused.check(address, 'ipv6') ? `${address} is not a public address` : null;
}
