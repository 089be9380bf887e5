import { readFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import ipaddr from 'ipaddr.js'

/** The detail a refused destination leaves in the delivery log (docs/webhooks.md, Destinations). */
export const DESTINATION_REFUSED = 'destination address is not allowed'

export type DestinationVerdict = { allowed: true } | { allowed: false; reason: string }

/**
 * Ranges reached only on the operator's own networks: allowed unless
 * GATEWAY_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=false.
 */
const PRIVATE_RANGES = new Set(['private', 'carrierGradeNat', 'uniqueLocal', 'deprecatedSiteLocal'])

/**
 * Cloud metadata and host services outside the link-local range, where a provider puts them in
 * ranges that would otherwise pass: AWS's IPv6 endpoint, Alibaba Cloud (in 100.64/10), Azure's
 * host service (a public address), Oracle Cloud (192.0.0.0/24).
 */
const METADATA_ADDRESSES = new Set(['fd00:ec2::254', '100.100.100.200', '168.63.129.16', '192.0.0.192'].map(normalized))

/** Every address of every interface of this machine, read now: an address added since counts. */
export function machineAddresses(): string[] {
  const listed = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address))
  return [...listed, ...kernelLocalAddresses()]
}

/**
 * The addresses the kernel delivers to this machine itself, from /proc on Linux (none
 * elsewhere): Node lists an interface's addresses only while its link is running, but an address
 * on an interface that is up without a carrier (a cable out, a peer down) still reaches the
 * gateway's own sockets. IPv4: the local table's host entries; IPv6: every assigned address.
 */
export function kernelLocalAddresses(read: (path: string) => string | null = readProc): string[] {
  const addresses: string[] = []
  let last: string | null = null
  for (const line of (read('/proc/net/fib_trie') ?? '').split('\n')) {
    const node = /\|--\s+([\d.]+)\s*$/.exec(line)
    if (node) last = node[1]
    else if (last && /^\s*\/32 host LOCAL\s*$/.test(line)) addresses.push(last)
  }
  for (const line of (read('/proc/net/if_inet6') ?? '').split('\n')) {
    const hex = /^([\da-f]{32})\s/i.exec(line)?.[1]
    if (hex) addresses.push(hex.match(/.{4}/g)!.join(':'))
  }
  return addresses
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/**
 * Which addresses a webhook may connect to (docs/webhooks.md, Destinations): public addresses yes;
 * private ranges unless GATEWAY_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=false; the machine itself (loopback
 * and the address of each of its interfaces: with HOST=0.0.0.0 the gateway's own API answers on
 * every one), unspecified, link-local and cloud metadata never. Anything that is neither public
 * unicast nor private (multicast, broadcast, reserved, documentation ranges) is refused too: an
 * allow-list, so a range nobody thought of is closed rather than open.
 *
 * Judged on the address actually connected to (the HTTP client calls `judgeAddress` on every
 * resolved address at connect time), and on literal hosts in any notation.
 */
export class DestinationPolicy {
  constructor(
    readonly options: {
      allowPrivateNetworks: boolean
      /**
       * The machine's own addresses, asked at every judgement (a DHCP lease, a VPN or a new
       * interface adds some while the gateway runs). Tests give a fixed list.
       */
      ownAddresses?: () => string[]
    }
  ) {}

  judgeAddress(text: string): DestinationVerdict {
    let address: ipaddr.IPv4 | ipaddr.IPv6
    try {
      address = ipaddr.parse(text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''))
    } catch {
      return { allowed: false, reason: 'not an IP address' }
    }
    return this.#judge(address)
  }

  /**
   * A URL's host before any lookup: a literal address is judged now (the socket's lookup hook
   * never sees one), `localhost` and its subdomains are the machine itself; any other name is
   * judged once resolved, at every attempt.
   */
  judgeHost(hostname: string): DestinationVerdict | 'resolve' {
    const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
    if (host === 'localhost' || host.endsWith('.localhost')) return { allowed: false, reason: 'loopback' }
    if (ipaddr.isValid(host)) return this.judgeAddress(host)
    return 'resolve'
  }

  /**
   * Why a URL may not be saved (a webhook's, a rule's call), or null: a literal address or
   * `localhost` is judged now; a name is judged at every attempt, on what it resolves to then.
   */
  refusalOfUrl(url: string): string | null {
    const verdict = this.judgeHost(new URL(url).hostname)
    return verdict !== 'resolve' && !verdict.allowed ? `The url's ${DESTINATION_REFUSED} (${verdict.reason})` : null
  }

  #judge(address: ipaddr.IPv4 | ipaddr.IPv6): DestinationVerdict {
    if (METADATA_ADDRESSES.has(address.toNormalizedString())) return { allowed: false, reason: 'cloud metadata' }
    if (address.kind() === 'ipv6') {
      const v6 = address as ipaddr.IPv6
      // An IPv4 address wrapped in IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4) is
      // the IPv4 address it carries.
      const embedded = embeddedIPv4(v6)
      if (embedded) return this.#judge(embedded)
      // IPv4-compatible addresses (::a.b.c.d) are deprecated and never routed.
      const range = v6.range()
      if (range !== 'unspecified' && range !== 'loopback' && v6.parts.slice(0, 6).every((part) => part === 0)) {
        return { allowed: false, reason: 'IPv4-compatible' }
      }
    }
    const range = address.range()
    // Loopback is refused by its range below; any other address of this machine only here.
    if ((range === 'unicast' || PRIVATE_RANGES.has(range)) && this.#isOwnAddress(address)) return { allowed: false, reason: 'the machine itself' }
    if (range === 'unicast') return { allowed: true }
    if (PRIVATE_RANGES.has(range)) {
      return this.options.allowPrivateNetworks ? { allowed: true } : { allowed: false, reason: 'private network' }
    }
    return { allowed: false, reason: range }
  }

  #isOwnAddress(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    const text = address.toNormalizedString()
    const own = this.options.ownAddresses ?? machineAddresses
    return own().some((candidate) => normalized(candidate) === text)
  }
}

/** One spelling per address (zone index dropped), so a comparison is a string equality. */
function normalized(text: string): string {
  try {
    return ipaddr.parse(text.replace(/%.*$/, '')).toNormalizedString()
  } catch {
    return text
  }
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = address.range()
  const parts = address.parts
  if (range === 'ipv4Mapped' || range === 'rfc6052' || range === 'rfc6145') {
    return ipaddr.fromByteArray([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff]) as ipaddr.IPv4
  }
  if (range === '6to4') {
    return ipaddr.fromByteArray([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff]) as ipaddr.IPv4
  }
  return null
}
