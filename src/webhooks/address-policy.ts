import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ValidationError } from '../errors.js';

/**
 * Addresses a webhook must never reach (SSRF): private, loopback, link-local, carrier-grade NAT, multicast,
 * unspecified and reserved ranges, in both families, and IPv4 hidden inside IPv6.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !blocked.check(address, 'ipv6');
}

export class RefusedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback or link-local address`);
    this.name = 'RefusedAddressError';
  }
}

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
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused !== undefined)
    throw new ValidationError(`${field} must not point to a private, loopback or link-local address (${host} is ${refused})`, field);
  return url.toString();
}

/** Checked again at delivery: an IP literal host is not looked up by node:http, so it is checked here. */
export function checkLiteralHost(url: URL): void {
  const host = bareHost(url);
  if (isIP(host) && !isPublicAddress(host)) throw new RefusedAddressError(host, host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http that refuses private addresses, so the address checked is the address connected
 * to (a DNS answer that changed since submission cannot slip through).
 */
export function guardedLookup(hostname: string, options: LookupAllOptions | { all?: boolean }, callback: LookupCallback): void {
  resolveAll(hostname).then(
    (addresses) => {
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new RefusedAddressError(hostname, refused.address), []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    },
    (err: NodeJS.ErrnoException) => callback(err, []),
  );
}
