import dns from 'node:dns';
import net from 'node:net';
import { AppError } from './errors';

/**
 * SSRF guard for every outbound call we make on a customer's behalf (webhooks, vendor
 * base URLs, database hosts). Loopback, link-local, private (RFC 1918, CGNAT, ULA),
 * unspecified, multicast, reserved and cloud metadata addresses are refused unless the
 * operator allowlists them (OUTBOUND_ALLOWLIST).
 *
 * How to use it:
 *   const policy = policyFromConfig(config);                   // once per process
 *   await assertUrlAllowed(url, policy);                       // save time AND call time (checks IP literals, resolves names)
 *   fetch/http.request(url, { lookup: guardedLookup(policy) }) // call time: the address actually connected to is checked (DNS-rebinding safe)
 *   const { address } = await assertHostAllowed(host, policy); // databases: connect to `address` (TLS servername = host)
 * Follow no redirects automatically: a redirect to an IP literal never goes through `lookup`.
 */

export interface OutboundPolicy {
  /** Hostnames ("db.internal", "*.corp.example") that may resolve to otherwise blocked addresses. */
  allowedHosts: string[];
  /** Addresses and ranges that are allowed although blocked by default. */
  allowedRanges: net.BlockList;
  /** The allowlist as configured, for error messages. */
  description: string;
}

export class OutboundBlockedError extends AppError {
  constructor(message: string) {
    super('BAD_REQUEST', message);
    this.name = 'OutboundBlockedError';
  }
}

/**
 * A name that did not resolve. Refused like a blocked address when a URL or host is saved, but at
 * run time a resolver outage or a record being moved passes: a later attempt may resolve it.
 */
export class HostUnresolvedError extends OutboundBlockedError {
  constructor(host: string) {
    super(`Host ${host} could not be resolved`);
    this.name = 'HostUnresolvedError';
  }
}

const BLOCKED_V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local / cloud metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved / broadcast'],
];

const BLOCKED_V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'IPv4-compatible'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (includes fd00:ec2::254 metadata)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** Names that reach cloud metadata services or this machine whatever DNS says. */
const BLOCKED_NAMES = ['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data'];

const blocked = new net.BlockList();
const reasons: Array<{ list: net.BlockList; reason: string }> = [];
for (const [address, prefix, reason] of BLOCKED_V4) {
  blocked.addSubnet(address, prefix, 'ipv4');
  const one = new net.BlockList();
  one.addSubnet(address, prefix, 'ipv4');
  reasons.push({ list: one, reason });
}
for (const [address, prefix, reason] of BLOCKED_V6) {
  blocked.addSubnet(address, prefix, 'ipv6');
  const one = new net.BlockList();
  one.addSubnet(address, prefix, 'ipv6');
  reasons.push({ list: one, reason });
}

function hexPairToV4(high: number, low: number): string {
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Expands an IPv6 literal into 8 numbers (handles "::" and a trailing dotted IPv4). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text =
      text.slice(0, -dotted[1]!.length) +
      `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = text.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  const groups = [...headGroups, ...Array(fill).fill('0'), ...tailGroups].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** The IPv4 address an IPv6 address carries (mapped, SIIT, NAT64 well-known and local-use, 6to4), if any. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return hexPairToV4(g[6]!, g[7]!); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return hexPairToV4(g[6]!, g[7]!); // 64:ff9b::/96
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return hexPairToV4(g[6]!, g[7]!); // 64:ff9b:1::/48 (RFC 8215, local NAT64)
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return hexPairToV4(g[6]!, g[7]!); // ::ffff:0:a.b.c.d (SIIT)
  if (g[0] === 0x2002) return hexPairToV4(g[1]!, g[2]!); // 6to4
  return null;
}

/** Why an IP address is blocked by default, or null when it is a public address. */
export function blockedReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) {
      const innerReason = blockedReason(inner);
      return innerReason ? `${innerReason} (IPv4 ${inner} inside IPv6)` : null;
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!blocked.check(address, type)) return null;
  return reasons.find((r) => r.list.check(address, type))?.reason ?? 'blocked range';
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

function normalizeHost(host: string): string {
  const trimmed = host.trim().toLowerCase().replace(/\.$/, '');
  return trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
}

function addressAllowed(policy: OutboundPolicy, address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (policy.allowedRanges.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const inner = family === 6 ? embeddedIpv4(address) : null;
  return inner !== null && policy.allowedRanges.check(inner, 'ipv4');
}

/**
 * Builds a policy from allowlist entries: IP addresses, CIDR ranges ("10.1.0.0/16",
 * "fd00::/8"), hostnames and "*.suffix" wildcards. Throws on an entry it cannot read.
 */
export function createOutboundPolicy(entries: string[]): OutboundPolicy {
  const allowedRanges = new net.BlockList();
  const allowedHosts: string[] = [];
  for (const raw of entries.map((e) => e.trim()).filter(Boolean)) {
    const [base, prefixText] = raw.split('/');
    const address = normalizeHost(base!);
    const family = net.isIP(address);
    if (family !== 0) {
      const max = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? max : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > max)
        throw new Error(`Invalid CIDR in outbound allowlist: ${raw}`);
      allowedRanges.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (
      prefixText === undefined &&
      /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(address)
    ) {
      allowedHosts.push(address);
    } else {
      throw new Error(`Invalid entry in outbound allowlist: ${raw}`);
    }
  }
  return { allowedHosts, allowedRanges, description: entries.join(',') || '(empty)' };
}

/** The policy from OUTBOUND_ALLOWLIST (comma-separated); empty means "public addresses only". */
export function policyFromConfig(config: { OUTBOUND_ALLOWLIST?: string }): OutboundPolicy {
  return createOutboundPolicy((config.OUTBOUND_ALLOWLIST ?? '').split(','));
}

function hostAllowlisted(policy: OutboundPolicy, host: string): boolean {
  return policy.allowedHosts.some((pattern) => hostMatches(pattern, host));
}

/** Throws unless `address`, reached through `host`, is allowed. */
function checkAddress(policy: OutboundPolicy, host: string, address: string): void {
  if (hostAllowlisted(policy, host) || addressAllowed(policy, address)) return;
  const reason = blockedReason(address);
  if (reason) {
    const via = host === address ? '' : ` (${host} resolves to ${address})`;
    throw new OutboundBlockedError(
      `Outbound connections to ${reason} addresses are not allowed${via}; an operator can allow it with OUTBOUND_ALLOWLIST`,
    );
  }
}

const isLocalName = (host: string) => BLOCKED_NAMES.includes(host) || host.endsWith('.localhost');
const localNameError = (host: string) =>
  new OutboundBlockedError(
    `Outbound connections to ${host} are not allowed; an operator can allow it with OUTBOUND_ALLOWLIST`,
  );

/** Every resolved address must be allowed; well-known local and metadata names only when their addresses are allowlisted. */
function checkResolved(policy: OutboundPolicy, host: string, addresses: Array<{ address: string }>): void {
  if (
    isLocalName(host) &&
    !hostAllowlisted(policy, host) &&
    !addresses.every(({ address }) => addressAllowed(policy, address))
  ) {
    throw localNameError(host);
  }
  for (const { address } of addresses) checkAddress(policy, host, address);
}

export interface ResolvedHost {
  host: string;
  /** The first allowed address: connect to this one, not to the name, to be rebinding safe. */
  address: string;
  family: 4 | 6;
  addresses: Array<{ address: string; family: number }>;
}

/**
 * Checks a host name or IP literal: names are resolved (the system resolver, as a
 * connection would) and every address must be allowed.
 */
export async function assertHostAllowed(hostInput: string, policy: OutboundPolicy): Promise<ResolvedHost> {
  const host = normalizeHost(hostInput);
  if (!host) throw new OutboundBlockedError('Host is empty');
  const literal = net.isIP(host);
  if (literal) {
    checkAddress(policy, host, host);
    return { host, address: host, family: literal as 4 | 6, addresses: [{ address: host, family: literal }] };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    if (isLocalName(host) && !hostAllowlisted(policy, host)) throw localNameError(host);
    throw new HostUnresolvedError(host);
  }
  if (addresses.length === 0) throw new HostUnresolvedError(host);
  checkResolved(policy, host, addresses);
  const first = addresses[0]!;
  return { host, address: first.address, family: first.family as 4 | 6, addresses };
}

/** Checks an outbound URL: http(s) only, then its host as assertHostAllowed does. */
export async function assertUrlAllowed(urlInput: string | URL, policy: OutboundPolicy): Promise<ResolvedHost> {
  let url: URL;
  try {
    url = typeof urlInput === 'string' ? new URL(urlInput) : urlInput;
  } catch {
    throw new OutboundBlockedError('Not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OutboundBlockedError(`URL scheme ${url.protocol} is not allowed; use https or http`);
  return assertHostAllowed(url.hostname, policy);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` function for node:net/http/https/tls (and undici's `connect` options) that
 * resolves as dns.lookup does and refuses blocked addresses, so the address actually
 * connected to is the one checked. IP literals never reach `lookup`: check URLs with
 * assertUrlAllowed before the call as well.
 */
export function guardedLookup(policy: OutboundPolicy) {
  return function lookup(
    hostname: string,
    options: dns.LookupOptions | number | LookupCallback,
    callback?: LookupCallback,
  ): void {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts: dns.LookupOptions =
      typeof options === 'object' ? options : typeof options === 'number' ? { family: options } : {};
    const host = normalizeHost(hostname);
    dns.lookup(host, { ...opts, all: true }, (err, addresses) => {
      if (err) return cb(err, opts.all ? [] : '', undefined);
      try {
        checkResolved(policy, host, addresses);
      } catch (error) {
        const blockedError = error as NodeJS.ErrnoException;
        blockedError.code = 'ERR_OUTBOUND_BLOCKED';
        return cb(blockedError, opts.all ? [] : '', undefined);
      }
      if (opts.all) return cb(null, addresses);
      const first = addresses[0];
      if (!first)
        return cb(Object.assign(new Error(`Host ${host} could not be resolved`), { code: 'ENOTFOUND' }), '', undefined);
      cb(null, first.address, first.family);
    });
  };
}
