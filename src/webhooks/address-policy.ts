import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../errors.js';

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): ipaddr.js names only its first address, ::. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Addresses a webhook may reach (SSRF): only global unicast, as ipaddr.js classifies the IANA special-purpose
 * registries. Everything else is refused, including every IPv6 form that carries an IPv4 address inside it
 * (IPv4-mapped, IPv4-compatible, SIIT, NAT64, 6to4, Teredo), since the IPv4 inside may be private and the
 * translator on the way would reach it.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(IPV4_COMPATIBLE)) return false;
  return parsed.range() === 'unicast';
}

/** The URL policy refused a webhook target: final, so the delivery is not retried. */
export class UrlPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlPolicyError';
  }
}

/** Names the host, never the address it resolved to: resolution inside the service's network is not for tenants. */
const refusedAddress = (host: string) =>
  new UrlPolicyError(`${host} is not an allowed webhook address (private, loopback, link-local or reserved)`);

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
}

const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checked when a callback URL is accepted: https only, and every address the host resolves to must be public.
 * `allowInsecure` (ALLOW_INSECURE_WEBHOOKS) lifts both, for development and tests.
 */
export async function checkWebhookUrl(raw: string, field: string, allowInsecure: boolean): Promise<string> {
  if (!URL.canParse(raw)) throw new ValidationError(`${field} must be a URL`, field);
  const url = new URL(raw);
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:'))
    throw new ValidationError(`${field} must use https`, field);
  if (url.username || url.password) throw new ValidationError(`${field} must not carry credentials`, field);
  if (allowInsecure) return url.toString();
  const host = bareHost(url);
  const addresses = isIP(host)
    ? [host]
    : await resolveAll(host).then(
        (all) => all.map((a) => a.address),
        () => {
          throw new ValidationError(`${field} host ${host} does not resolve`, field);
        },
      );
  if (addresses.some((a) => !isPublicAddress(a)))
    throw new ValidationError(`${field} must not point to a private, loopback, link-local or reserved address`, field);
  return url.toString();
}

/** Checked again at delivery: an IP literal host is not looked up by node:http, so it is checked here. */
export function checkLiteralHost(url: URL): void {
  const host = bareHost(url);
  if (isIP(host) && !isPublicAddress(host)) throw refusedAddress(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http that refuses private addresses, so the address checked is the address connected
 * to (a DNS answer that changed since submission cannot slip through).
 */
export function guardedLookup(hostname: string, options: LookupAllOptions | { all?: boolean }, callback: LookupCallback): void {
  resolveAll(hostname).then(
    (addresses) => {
      if (addresses.some((a) => !isPublicAddress(a.address))) return callback(refusedAddress(hostname), []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    },
    (err: NodeJS.ErrnoException) => callback(err, []),
  );
}
