import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressKind, type AllowList, allowList, classifyAddress } from './addresses';

/** Every address a host name resolves to, as node:dns gives them. */
export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/** Why a payload URL can't be reached: its host has no address, or one of its addresses is not public. */
export class TargetRefused extends Error {
  constructor(
    readonly problem: 'dns' | 'address_not_allowed',
    readonly address?: string,
    readonly kind?: AddressKind,
    /** The name server did not answer (EAI_AGAIN): the name may well exist. */
    readonly temporary = false,
  ) {
    super(problem === 'dns' ? 'host not found' : `address ${address} is ${kind}`);
    this.name = 'TargetRefused';
  }
}

/** Where a request goes: the address that was checked, which is the one connected to. */
export interface Target {
  address: string;
  family: 4 | 6;
}

const lists = new WeakMap<readonly string[], AllowList>();

/** WEBHOOK_ALLOWED_HOSTS as an allow-list, read once per configuration. */
export function allowListOf(entries: readonly string[]): AllowList {
  let list = lists.get(entries);
  if (!list) {
    list = allowList(entries);
    lists.set(entries, list);
  }
  return list;
}

/**
 * Resolves the URL's host and checks every address it has (a host with one private address among public
 * ones is refused: the connection could land on either). Hosts named in the allow-list skip the check, and
 * so do addresses inside its ranges. Answers the address to connect to, so nothing resolves the name again
 * between the check and the connection (DNS rebinding).
 */
export async function resolveTarget(url: URL, allowed: AllowList, lookup: Lookup = systemLookup): Promise<Target> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new TargetRefused('dns', undefined, undefined, code === 'EAI_AGAIN' || code === 'ETIMEOUT');
    }
    if (addresses.length === 0) throw new TargetRefused('dns');
  }
  if (!allowed.allowsHost(host)) {
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (kind !== 'public' && !allowed.allowsAddress(address)) throw new TargetRefused('address_not_allowed', address, kind);
    }
  }
  const [first] = addresses;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
