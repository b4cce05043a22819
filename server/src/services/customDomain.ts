/**
 * The custom domain's DNS (spec 2.9): which record the account must create, and whether the name
 * resolves to this server now. The resolver is injectable (tests give a real DNS peer on 127.0.0.1
 * through TAWQI_DNS_SERVERS, or a function); nothing here caches, so the console shows the answer
 * of the moment.
 */
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** The lookups the check needs: node:dns's Resolver has them all. */
export interface DnsLookups {
  resolveCname(name: string): Promise<string[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
}

export type DomainState = 'points_here' | 'points_elsewhere' | 'not_found' | 'lookup_failed';

export interface CustomDomainStatus {
  domain: string;
  /** The record to create at the domain's DNS host. */
  record: { type: 'CNAME' | 'A' | 'AAAA'; name: string; value: string };
  state: DomainState;
  /** What the name resolves to now (CNAME target or addresses); empty when nothing. */
  found: string[];
  /** The resolver's error code when the lookup failed (ETIMEOUT, ESERVFAIL, …). */
  error: string | null;
}

/** A resolver that asks `servers` (ip or ip:port), or the system's when none; short timeout, one try. */
export function dnsLookups(servers?: string[]): DnsLookups {
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  if (servers && servers.length > 0) resolver.setServers(servers);
  return resolver;
}

const NO_ANSWER = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);
const bare = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** Answers of one lookup: [] when the name has no such record, the error code when the lookup failed. */
async function answers(lookup: () => Promise<string[]>): Promise<string[] | { error: string }> {
  try {
    return (await lookup()).map(bare);
  } catch (err) {
    const code = String((err as { code?: string }).code ?? 'ERROR');
    return NO_ANSWER.has(code) ? [] : { error: code };
  }
}

async function addresses(dns: DnsLookups, name: string): Promise<string[] | { error: string }> {
  const [v4, v6] = await Promise.all([answers(() => dns.resolve4(name)), answers(() => dns.resolve6(name))]);
  if (!Array.isArray(v4)) return v4;
  return Array.isArray(v6) ? [...v4, ...v6] : v4;
}

/** The record a custom domain needs to reach `publicUrl`'s host: a CNAME to a host name, an A/AAAA to an address. */
export function customDomainRecord(domain: string, publicUrl: string): CustomDomainStatus['record'] {
  const target = new URL(publicUrl).hostname.replace(/^\[|\]$/g, '');
  const ip = isIP(target);
  return { type: ip === 4 ? 'A' : ip === 6 ? 'AAAA' : 'CNAME', name: domain, value: target };
}

/** Look the domain up now: does it point here (CNAME to our host, or the same addresses)? */
export async function checkCustomDomain(dns: DnsLookups, domain: string, publicUrl: string): Promise<CustomDomainStatus> {
  const record = customDomainRecord(domain, publicUrl);
  const status = (state: DomainState, found: string[], error: string | null = null): CustomDomainStatus => ({
    domain,
    record,
    state,
    found,
    error,
  });
  const cname = await answers(() => dns.resolveCname(domain));
  if (Array.isArray(cname) && cname.includes(bare(record.value))) return status('points_here', cname);
  const found = await addresses(dns, domain);
  if (!Array.isArray(found)) return status('lookup_failed', [], found.error);
  const shown = Array.isArray(cname) && cname.length > 0 ? cname : found;
  if (found.length === 0) return status(shown.length > 0 ? 'points_elsewhere' : 'not_found', shown);
  const ours = record.type === 'CNAME' ? await addresses(dns, record.value) : [record.value];
  if (!Array.isArray(ours)) return status('lookup_failed', shown, ours.error);
  return status(found.some((a) => ours.includes(a)) ? 'points_here' : 'points_elsewhere', shown);
}
