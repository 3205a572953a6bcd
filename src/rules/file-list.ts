// A list file's values. A line in CIDR notation (`105.112.0.0/12`) is an address range: `ip in list L` holds for
// every address inside it, so analysts can keep a carrier's NAT pools, which are ranges, not addresses.
import ipaddr from 'ipaddr.js';

export interface FileList {
  has(value: string): boolean;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

class ValuesAndRanges implements FileList {
  constructor(
    private readonly values: ReadonlySet<string>,
    private readonly ranges: readonly Range[],
  ) {}

  has(value: string): boolean {
    if (this.values.has(value)) return true;
    if (!ipaddr.isValid(value)) return false;
    // An IPv4 address written as IPv6 (::ffff:a.b.c.d) is the IPv4 address.
    const address = ipaddr.process(value);
    return this.ranges.some((r) => r[0].kind() === address.kind() && address.match(r));
  }
}

function range(value: string): Range | undefined {
  if (!value.includes('/')) return undefined;
  try {
    return ipaddr.parseCIDR(value);
  } catch {
    return undefined;
  }
}

/** One value per line; `#` starts a comment. Lists without ranges are plain sets. */
export function parseList(text: string): FileList {
  const values = new Set<string>();
  const ranges: Range[] = [];
  for (const line of text.split('\n')) {
    const value = line.replace(/#.*/, '').trim();
    if (value === '') continue;
    const r = range(value);
    if (r) ranges.push(r);
    else values.add(value);
  }
  return ranges.length === 0 ? values : new ValuesAndRanges(values, ranges);
}
