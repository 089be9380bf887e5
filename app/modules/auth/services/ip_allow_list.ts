import ipaddr from 'ipaddr.js'

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/**
 * Parses one allowed-address entry: a single IPv4 or IPv6 address, or a CIDR range of either.
 * Returns null when the entry is neither. An IPv4-mapped IPv6 entry is read as the IPv4 one.
 */
export function parseAllowedEntry(entry: string): Range | null {
  const text = entry.trim()
  try {
    if (text.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(text)
      if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96]
      }
      return [address, bits]
    }
    const address = ipaddr.process(text)
    return [address, address.kind() === 'ipv4' ? 32 : 128]
  } catch {
    return null
  }
}

/** The entry as the gateway shows it back: normalised (`10.0.0.0/8`, `2001:db8::/32`). */
export function normaliseAllowedEntry(entry: string): string {
  const range = parseAllowedEntry(entry)
  if (!range) return entry
  const [address, bits] = range
  const full = address.kind() === 'ipv4' ? 32 : 128
  return bits === full ? address.toString() : `${address.toString()}/${bits}`
}

/**
 * Whether a caller address falls in any entry. The caller's IPv4-mapped IPv6 form
 * (`::ffff:10.1.2.3`, as dual-stack sockets report IPv4 peers) is judged as IPv4.
 */
export function isAddressAllowed(callerAddress: string, entries: string[]): boolean {
  let caller: ipaddr.IPv4 | ipaddr.IPv6
  try {
    caller = ipaddr.process(callerAddress)
  } catch {
    return false
  }
  return entries.some((entry) => {
    const range = parseAllowedEntry(entry)
    return range !== null && range[0].kind() === caller.kind() && caller.match(range as any)
  })
}
