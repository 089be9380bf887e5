/**
 * A PDU that cannot be read or written. Its message names the field, never the text or the
 * number it holds, so it can be logged as it is.
 */
export class PduError extends Error {
  override name = 'PduError'
}

export function fromHex(hex: string): Uint8Array {
  const clean = hex.trim()
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) throw new PduError('PDU: not an even number of hex digits')
  const octets = new Uint8Array(clean.length / 2)
  for (let index = 0; index < octets.length; index++) octets[index] = parseInt(clean.slice(index * 2, index * 2 + 2), 16)
  return octets
}

export function toHex(octets: ArrayLike<number>): string {
  let hex = ''
  for (let index = 0; index < octets.length; index++) hex += octets[index].toString(16).padStart(2, '0')
  return hex.toUpperCase()
}

/** Reads a PDU front to back; running past its end is a PduError naming the field. */
export class OctetReader {
  #offset = 0

  constructor(readonly octets: Uint8Array) {}

  get offset(): number {
    return this.#offset
  }

  get left(): number {
    return this.octets.length - this.#offset
  }

  octet(field: string): number {
    if (this.left < 1) throw new PduError(`PDU: ends before ${field}`)
    return this.octets[this.#offset++]
  }

  take(count: number, field: string): Uint8Array {
    if (count < 0 || this.left < count) throw new PduError(`PDU: ends inside ${field}`)
    const slice = this.octets.subarray(this.#offset, this.#offset + count)
    this.#offset += count
    return slice
  }

  /** What is left, at most `count` octets: user data shorter than its length says is read as far as it goes. */
  takeUpTo(count: number): Uint8Array {
    return this.take(Math.min(count, this.left), 'user data')
  }
}
