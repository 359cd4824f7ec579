import { describe, expect, it } from 'vitest';
import { type AddressKind, allowList, classifyAddress, parseIp } from './addresses';

/** Every address whose kind differs from the table's, so one run names all the mistakes. */
function misjudged(expected: Record<string, AddressKind>): string[] {
  return Object.entries(expected)
    .filter(([address, kind]) => classifyAddress(address) !== kind)
    .map(([address, kind]) => `${address}: expected ${kind}, got ${classifyAddress(address)}`);
}

describe('classifyAddress', () => {
  it('lets public unicast through, v4 and v6', () => {
    expect(
      misjudged({
        '8.8.8.8': 'public',
        '93.184.216.34': 'public',
        '1.1.1.1': 'public',
        '172.15.255.255': 'public',
        '172.32.0.1': 'public',
        '100.63.255.255': 'public',
        '100.128.0.1': 'public',
        '2606:4700:4700::1111': 'public',
        '2a00:1450:4001:81b::200e': 'public',
      }),
    ).toEqual([]);
  });

  it('refuses the private ranges: 10/8, 172.16/12, 192.168/16, fc00::/7', () => {
    expect(
      misjudged({
        '10.0.0.1': 'private',
        '10.255.255.255': 'private',
        '172.16.0.1': 'private',
        '172.31.255.254': 'private',
        '192.168.1.10': 'private',
        'fc00::1': 'private',
        'fd12:3456:789a::1': 'private',
      }),
    ).toEqual([]);
  });

  it('refuses loopback, link-local with the cloud metadata address, unspecified and CGNAT', () => {
    expect(
      misjudged({
        '127.0.0.1': 'loopback',
        '127.255.255.254': 'loopback',
        '::1': 'loopback',
        '169.254.169.254': 'link_local',
        '169.254.0.1': 'link_local',
        'fe80::1': 'link_local',
        'febf::1': 'link_local',
        '0.0.0.0': 'unspecified',
        '0.1.2.3': 'unspecified',
        '::': 'unspecified',
        '100.64.0.1': 'cgnat',
        '100.127.255.254': 'cgnat',
      }),
    ).toEqual([]);
  });

  it('sees through IPv6 forms of IPv4 addresses: mapped, compatible, NAT64, 6to4', () => {
    expect(
      misjudged({
        '::ffff:127.0.0.1': 'loopback',
        '::ffff:7f00:1': 'loopback',
        '::ffff:169.254.169.254': 'link_local',
        '::ffff:a9fe:a9fe': 'link_local',
        '::ffff:10.0.0.1': 'private',
        '::ffff:0:10.0.0.1': 'private',
        '::127.0.0.1': 'loopback',
        '64:ff9b::10.0.0.1': 'private',
        '64:ff9b::7f00:1': 'loopback',
        '2002:7f00:1::': 'loopback',
        '2002:c0a8:101::1': 'private',
        '::ffff:8.8.8.8': 'public',
        '64:ff9b::8.8.8.8': 'public',
      }),
    ).toEqual([]);
  });

  it('refuses multicast, broadcast, documentation and other reserved space', () => {
    expect(
      misjudged({
        '224.0.0.1': 'multicast',
        '239.255.255.250': 'multicast',
        'ff02::1': 'multicast',
        '255.255.255.255': 'reserved',
        '240.0.0.1': 'reserved',
        '192.0.2.1': 'reserved',
        '198.51.100.7': 'reserved',
        '203.0.113.9': 'reserved',
        '198.18.0.1': 'reserved',
        '2001:db8::1': 'reserved',
        '2001:0:4136:e378::1': 'reserved',
        '100::1': 'reserved',
        '4000::1': 'reserved',
      }),
    ).toEqual([]);
  });

  it('reads brackets and zones, and calls what is no address reserved', () => {
    expect(
      misjudged({
        '[::1]': 'loopback',
        'fe80::1%eth0': 'link_local',
        'localhost': 'reserved',
        '': 'reserved',
        '127.1': 'reserved',
        '1.2.3.256': 'reserved',
      }),
    ).toEqual([]);
  });
});

describe('parseIp', () => {
  it('expands :: and embedded quads to 16 bytes', () => {
    expect([...parseIp('::ffff:1.2.3.4')!.bytes]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4]);
    expect([...parseIp('2001:db8::ff00:42:8329')!.bytes.slice(10)]).toEqual([0xff, 0, 0, 0x42, 0x83, 0x29]);
    expect(parseIp('1:2:3:4:5:6:7:8:9')).toBeNull();
    expect(parseIp('1::2::3')).toBeNull();
  });
});

describe('allowList', () => {
  const list = allowList(['127.0.0.1', '10.20.0.0/16', 'Hooks.Internal.Example', 'fd00::/8', '::ffff:192.168.5.0/120', 'not/a/cidr/at all']);

  it('lets listed host names through, whatever their case or a final dot', () => {
    expect(list.allowsHost('hooks.internal.example')).toBe(true);
    expect(list.allowsHost('HOOKS.internal.example.')).toBe(true);
    expect(list.allowsHost('other.internal.example')).toBe(false);
  });

  it('lets exact addresses and addresses inside listed ranges through, in either IPv4 spelling', () => {
    expect(list.allowsAddress('127.0.0.1')).toBe(true);
    expect(list.allowsAddress('::ffff:127.0.0.1')).toBe(true);
    expect(list.allowsAddress('127.0.0.2')).toBe(false);
    expect(list.allowsAddress('10.20.255.1')).toBe(true);
    expect(list.allowsAddress('10.21.0.1')).toBe(false);
    expect(list.allowsAddress('fd00::5')).toBe(true);
    expect(list.allowsAddress('fc00::5')).toBe(false);
    expect(list.allowsAddress('192.168.5.77')).toBe(true);
    expect(list.allowsAddress('192.168.6.1')).toBe(false);
  });

  it('allows nothing when empty', () => {
    const empty = allowList([]);
    expect(empty.allowsAddress('127.0.0.1')).toBe(false);
    expect(empty.allowsHost('localhost')).toBe(false);
  });
});
