import { isIP } from 'node:net';

/*
 * Which IP addresses a webhook may reach. Only public unicast is allowed by default; everything that leads
 * into the machine or its network (private, loopback, link-local with the cloud metadata address, CGNAT,
 * unspecified, multicast, reserved) is refused, also when written as IPv6 around an IPv4 address
 * (`::ffff:127.0.0.1`, NAT64, 6to4). WEBHOOK_ALLOWED_HOSTS lets named hosts and addresses through anyway.
 */

export type AddressKind = 'public' | 'private' | 'loopback' | 'link_local' | 'unspecified' | 'cgnat' | 'multicast' | 'reserved';

interface Ip {
  version: 4 | 6;
  bytes: Uint8Array;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return null;
    const value = Number(parts[i]);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | null {
  let rest = text;
  // An embedded dotted quad at the end (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    const quad = parseIpv4(rest.slice(lastColon + 1));
    if (!quad) return null;
    const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
    rest = `${rest.slice(0, lastColon + 1)}${hex(quad[0], quad[1])}:${hex(quad[2], quad[3])}`;
  }
  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const end = halves.length === 2 ? groups(halves[1]) : [];
  const known = head.length + end.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const bytes = new Uint8Array(16);
  const words = [...head, ...Array<string>(8 - known).fill('0'), ...end];
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(words[i])) return null;
    const word = Number.parseInt(words[i], 16);
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  }
  return bytes;
}

/** The address as bytes; `[…]` brackets and an IPv6 zone (`%eth0`) are dropped. Null for what is no IP. */
export function parseIp(text: string): Ip | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) {
    const bytes = parseIpv4(bare);
    return bytes ? { version: 4, bytes } : null;
  }
  if (version === 6) {
    const bytes = parseIpv6(bare);
    return bytes ? { version: 6, bytes } : null;
  }
  return null;
}

function inPrefix(bytes: Uint8Array, prefix: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if ((bytes[i >> 3] & mask) !== (prefix[i >> 3] & mask)) return false;
  }
  return true;
}

const v4 = (text: string, bits: number) => ({ prefix: parseIpv4(text)!, bits });
const v6 = (text: string, bits: number) => ({ prefix: parseIpv6(text)!, bits });

const IPV4_RANGES: { prefix: Uint8Array; bits: number; kind: AddressKind }[] = [
  { ...v4('0.0.0.0', 8), kind: 'unspecified' },
  { ...v4('10.0.0.0', 8), kind: 'private' },
  { ...v4('100.64.0.0', 10), kind: 'cgnat' },
  { ...v4('127.0.0.0', 8), kind: 'loopback' },
  { ...v4('169.254.0.0', 16), kind: 'link_local' },
  { ...v4('172.16.0.0', 12), kind: 'private' },
  { ...v4('192.0.0.0', 24), kind: 'reserved' },
  { ...v4('192.0.2.0', 24), kind: 'reserved' },
  { ...v4('192.88.99.0', 24), kind: 'reserved' },
  { ...v4('192.168.0.0', 16), kind: 'private' },
  { ...v4('198.18.0.0', 15), kind: 'reserved' },
  { ...v4('198.51.100.0', 24), kind: 'reserved' },
  { ...v4('203.0.113.0', 24), kind: 'reserved' },
  { ...v4('224.0.0.0', 4), kind: 'multicast' },
  { ...v4('240.0.0.0', 4), kind: 'reserved' },
];

/** IPv6 prefixes that carry an IPv4 address, and where it sits. */
const IPV4_CARRIERS: { prefix: Uint8Array; bits: number; offset: number }[] = [
  { ...v6('::ffff:0:0', 96), offset: 12 }, // IPv4-mapped
  { ...v6('::', 96), offset: 12 }, // IPv4-compatible (deprecated)
  { ...v6('::ffff:0:0:0', 96), offset: 12 }, // IPv4-translated (SIIT)
  { ...v6('64:ff9b::', 96), offset: 12 }, // NAT64
  { ...v6('2002::', 16), offset: 2 }, // 6to4
];

const IPV6_RANGES: { prefix: Uint8Array; bits: number; kind: AddressKind }[] = [
  { ...v6('64:ff9b:1::', 48), kind: 'private' }, // local-use NAT64
  { ...v6('100::', 64), kind: 'reserved' }, // discard-only
  { ...v6('2001::', 32), kind: 'reserved' }, // Teredo: the client address inside is obfuscated
  { ...v6('2001:db8::', 32), kind: 'reserved' }, // documentation
  { ...v6('fc00::', 7), kind: 'private' }, // unique local
  { ...v6('fe80::', 10), kind: 'link_local' },
  { ...v6('fec0::', 10), kind: 'private' }, // site-local (deprecated)
  { ...v6('ff00::', 8), kind: 'multicast' },
];
const GLOBAL_UNICAST = v6('2000::', 3);

function classifyV4(bytes: Uint8Array): AddressKind {
  return IPV4_RANGES.find((range) => inPrefix(bytes, range.prefix, range.bits))?.kind ?? 'public';
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
function embeddedV4(bytes: Uint8Array): Uint8Array | null {
  const carrier = IPV4_CARRIERS.find((range) => inPrefix(bytes, range.prefix, range.bits));
  return carrier ? bytes.slice(carrier.offset, carrier.offset + 4) : null;
}

/** What an address is. Anything that is not an IP address is `reserved`: never connect to it. */
export function classifyAddress(address: string): AddressKind {
  const ip = parseIp(address);
  if (!ip) return 'reserved';
  if (ip.version === 4) return classifyV4(ip.bytes);
  const bytes = ip.bytes;
  if (bytes.every((byte) => byte === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return 'loopback';
  const inner = embeddedV4(bytes);
  if (inner) return classifyV4(inner);
  const range = IPV6_RANGES.find((candidate) => inPrefix(bytes, candidate.prefix, candidate.bits));
  if (range) return range.kind;
  return inPrefix(bytes, GLOBAL_UNICAST.prefix, GLOBAL_UNICAST.bits) ? 'public' : 'reserved';
}

/** An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) compares as the IPv4 address. */
function canonical(ip: Ip): Ip {
  if (ip.version === 6 && inPrefix(ip.bytes, IPV4_CARRIERS[0].prefix, 96)) return { version: 4, bytes: ip.bytes.slice(12) };
  return ip;
}

/** WEBHOOK_ALLOWED_HOSTS read once: host names, exact addresses and CIDR ranges. */
export interface AllowList {
  /** True when the URL's host name is listed as such. */
  allowsHost(host: string): boolean;
  /** True when the address is listed, or inside a listed range. */
  allowsAddress(address: string): boolean;
}

export function allowList(entries: readonly string[]): AllowList {
  const hosts = new Set<string>();
  const ranges: { version: 4 | 6; prefix: Uint8Array; bits: number }[] = [];
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [address, bitsText] = entry.split('/');
    const ip = parseIp(address);
    if (!ip) {
      hosts.add(entry.replace(/\.$/, ''));
      continue;
    }
    const { version, bytes } = canonical(ip);
    const max = version === 4 ? 32 : 128;
    // A mapped IPv6 range (::ffff:10.0.0.0/104) is the IPv4 range it maps.
    const given = bitsText === undefined ? max : Number(bitsText) - (ip.version === 6 && version === 4 ? 96 : 0);
    if (!Number.isInteger(given) || given < 0 || given > max) continue;
    ranges.push({ version, prefix: bytes, bits: given });
  }
  return {
    allowsHost: (host) => hosts.has(host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')),
    allowsAddress(address) {
      const ip = parseIp(address);
      if (!ip) return false;
      const { version, bytes } = canonical(ip);
      return ranges.some((range) => range.version === version && inPrefix(bytes, range.prefix, range.bits));
    },
  };
}
