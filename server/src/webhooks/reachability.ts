import { lookup } from 'node:dns/promises';
import { isIP, isIPv4, isIPv6, type LookupFunction } from 'node:net';

/**
 * Webhook targets must be publicly reachable (spec 4: "HTTPS, publicly reachable"): a host that is
 * or resolves to a loopback, private, link-local, shared, multicast or reserved address is refused
 * at registration and again at every connection (DNS can change). TAWQI_WEBHOOK_ALLOW_PRIVATE lifts
 * the address rule for internal networks and tests; the HTTPS rule always holds.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name → addresses. The system resolver (getaddrinfo: /etc/hosts, then DNS) unless a test injects one. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** A target the rules refuse; the message names the host, the address and why. */
export class TargetRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'unresolvable' | 'not_public',
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Address classes

/** IPv4 blocks that are not publicly routable (IANA special-purpose registry), with their names. */
const IPV4_BLOCKS: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function ipv4Number(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const IPV4_TABLE = IPV4_BLOCKS.map(([base, bits, name]) => {
  const size = 2 ** (32 - bits);
  return { start: ipv4Number(base), size, name };
});

function ipv4Problem(ip: string): string | null {
  const n = ipv4Number(ip);
  for (const b of IPV4_TABLE) if (n >= b.start && n < b.start + b.size) return b.name;
  return null;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped; an embedded IPv4 tail converted). */
export function ipv6Groups(text: string): number[] | null {
  const ip = text.split('%')[0]!;
  if (!isIPv6(ip)) return null;
  let s = ip;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const n = ipv4Number(tail);
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  const groups = [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 ? groups : null;
}

const embeddedIpv4 = (g: number[]): string => [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.');

function ipv6Problem(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (!g) return 'not an address';
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  if (zeroUpTo(5) && g[5] === 0xffff) {
    const inner = ipv4Problem(embeddedIpv4(g));
    return inner ? `IPv4-mapped ${inner}` : null;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const inner = ipv4Problem(embeddedIpv4(g));
    return inner ? `NAT64 of ${inner}` : null;
  }
  if (zeroUpTo(6)) return 'reserved (IPv4-compatible)';
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'reserved (local NAT64)';
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved (discard)';
  if ((g[0]! & 0xfe00) === 0xfc00) return 'private (unique local)';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'reserved (site-local)';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (g[0] === 0x3fff && g[1]! < 0x1000) return 'documentation';
  if (g[0] === 0x2001 && g[1]! < 0x0200) return 'reserved (IETF protocol assignments)';
  if (g[0] === 0x2002) return 'reserved (6to4)';
  if (g[0] === 0x5f00) return 'reserved (SRv6)';
  if ((g[0]! & 0xe000) !== 0x2000) return 'reserved';
  return null;
}

/** Why an address is not public (e.g. 'loopback', 'private', 'IPv4-mapped loopback'), or null when it is. */
export function addressProblem(ip: string): string | null {
  if (isIPv4(ip)) return ipv4Problem(ip);
  if (isIPv6(ip.split('%')[0]!)) return ipv6Problem(ip);
  return 'not an address';
}

// ---------------------------------------------------------------------------------------------
// URLs and hosts

export const MAX_URL_LENGTH = 2048;

/** The URL rules that need no network: https, a host, no credentials, no fragment. Returns the problem or null. */
export function urlShapeProblem(raw: string): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as https://hooks.example.com/tawqi';
  }
  if (url.protocol !== 'https:') return 'must use https://';
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a fragment (#…)';
  return null;
}

/** A URL's host as a connection needs it: IPv6 literals lose their brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The addresses a connection to `host` may use: an IP literal as is, a name through `resolve`.
 * Unless private targets are allowed, every address must be public — one private address among
 * public ones refuses the host (a name that points inside is not trusted half-way).
 */
export async function resolveTarget(host: string, allowPrivate: boolean, resolve: Resolver): Promise<ResolvedAddress[]> {
  let addresses: ResolvedAddress[];
  const family = isIP(host.split('%')[0]!);
  if (family !== 0) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw new TargetRefused(`${host} could not be resolved`, 'unresolvable');
  }
  if (!allowPrivate) {
    for (const a of addresses) {
      const problem = addressProblem(a.address);
      if (problem) {
        const where = family !== 0 ? `${host} is` : `${host} resolves to ${a.address}, which is`;
        throw new TargetRefused(`${where} not a public address (${problem})`, 'not_public');
      }
    }
  }
  return addresses;
}

/**
 * A `lookup` for node:net/tls that resolves, checks and hands the connection exactly the checked
 * addresses: a name cannot pass the check with one answer and connect to another (DNS rebinding).
 */
export function checkedLookup(allowPrivate: boolean, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveTarget(hostname, allowPrivate, resolve).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) {
          callback(new TargetRefused(`${hostname} has no IPv${options.family} address`, 'unresolvable'), '', 0);
          return;
        }
        if (options.all) (callback as unknown as (err: null, addresses: ResolvedAddress[]) => void)(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: Error) => callback(err, '', 0),
    );
  };
}
