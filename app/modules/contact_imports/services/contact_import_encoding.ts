import { createReadStream } from 'node:fs'
import { Transform, type Readable } from 'node:stream'

/**
 * The encodings an imported CSV is read with: UTF-8 ("CSV UTF-8"), and Windows-1252, what Excel
 * writes as plain "CSV" where Western European languages are set (é, ü, ñ as one byte each).
 */
export const IMPORT_ENCODINGS = ['utf-8', 'windows-1252'] as const
export type ImportEncoding = (typeof IMPORT_ENCODINGS)[number]

const UTF8_BOM = [0xef, 0xbb, 0xbf]

/**
 * Windows-1252's characters for the bytes 0x80 to 0x9F (€, ’, “, Œ, …); every other byte is the
 * Latin-1 character of the same number. The five bytes it leaves undefined stay control codes.
 * Kept here because Node 20's TextDecoder('windows-1252') reads these 32 bytes as Latin-1's
 * control codes, and they are the curly quotes and euro signs spreadsheets are full of.
 */
const HIGH_HALF_CONTROLS = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ'

/** Windows-1252 bytes as text (one byte, one character: a chunk can end anywhere). */
export function decodeWindows1252(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[\x80-\x9f]/g, (control) => HIGH_HALF_CONTROLS[control.charCodeAt(0) - 0x80])
}

/**
 * How a file's bytes are to be read: a UTF-8 byte order mark means UTF-8; a UTF-16 one (or the
 * NUL bytes of UTF-16 text without one) answers `utf-16`, which the import does not read; else
 * the whole file is checked, and a single sequence that is not UTF-8 means Windows-1252 (a file
 * of plain ASCII reads the same either way, and is answered as UTF-8).
 */
export async function detectImportEncoding(file: string): Promise<ImportEncoding | 'utf-16'> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let first = true
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      if (first) {
        first = false
        if (UTF8_BOM.every((byte, index) => chunk[index] === byte)) return 'utf-8'
        if ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff) || chunk.includes(0)) return 'utf-16'
      }
      decoder.decode(chunk, { stream: true })
    }
    // A multi-byte sequence cut by the end of the file is not UTF-8 either.
    decoder.decode()
    return 'utf-8'
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'windows-1252'
    throw error
  }
}

/**
 * The file as UTF-8 bytes, for the CSV parser: a Windows-1252 file is converted as it streams
 * (never held in memory); a UTF-8 one is passed as it is (its BOM is the parser's to drop).
 */
export function readAsUtf8(file: string, encoding: ImportEncoding): Readable {
  const bytes = createReadStream(file)
  if (encoding === 'utf-8') return bytes
  const converter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, Buffer.from(decodeWindows1252(chunk), 'utf8'))
    },
  })
  bytes.on('error', (error) => converter.destroy(error))
  converter.on('close', () => bytes.destroy())
  return bytes.pipe(converter)
}
