import { execFile } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { ReadStream, WriteStream } from 'node:tty'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * A byte stream to a modem, read and written as latin1 text (AT commands and hex PDUs are
 * ASCII). The serial device in production; tests give a socket to a simulated modem.
 */
export interface ModemPort {
  write(text: string): void
  onData(listener: (text: string) => void): void
  /** Called once when the port goes away (device unplugged, peer closed). */
  onClose(listener: () => void): void
  close(): void
}

/**
 * Opens a serial device: its speed set with stty first when given (a pseudo-terminal has
 * none), raw and without echo from the line discipline, so only the modem's own echo is seen.
 */
export async function openSerialPort(path: string, baudRate?: number, options: { probe?: boolean } = {}): Promise<ModemPort> {
  if (options.probe) {
    // A port that may be anything (--list): raw whatever its speed, an stty that cannot hang,
    // and an open that does not wait for a carrier a port without a modem never raises.
    await run('stty', ['-F', path, ...(baudRate ? [String(baudRate)] : []), 'raw', '-echo', '-hupcl'], { timeout: 2000 })
  } else if (baudRate) await run('stty', ['-F', path, String(baudRate), 'raw', '-echo', '-hupcl'])
  const fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY | (options.probe ? constants.O_NONBLOCK : 0))
  const input = new ReadStream(fd)
  const output = new WriteStream(fd)
  input.setEncoding('latin1')
  let closed = false
  const closeListeners: Array<() => void> = []
  const ended = () => {
    if (closed) return
    closed = true
    for (const listener of closeListeners) listener()
  }
  input.on('error', ended)
  input.on('close', ended)
  output.on('error', ended)
  return {
    write: (text) => void output.write(Buffer.from(text, 'latin1')),
    onData: (listener) => void input.on('data', (chunk: string) => listener(chunk)),
    onClose: (listener) => void closeListeners.push(listener),
    close() {
      closed = true
      input.destroy()
      output.destroy()
      try {
        closeSync(fd)
      } catch {}
    },
  }
}
