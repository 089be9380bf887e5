import { readdir, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { AtChannel, AtError } from './at_channel.js'
import { systemClock } from './clock.js'
import { openSerialPort, type ModemPort } from './serial_port.js'

/** How long each command of the probe may take: a port that is no modem answers nothing. */
export const PROBE_COMMAND_MS = 2000

/** What a port said about itself. */
export interface ProbedPort {
  /** The path found (a /dev/serial/by-id/ link when there is one). */
  path: string
  /** The device it leads to, when another path than `path`. */
  device: string | null
  /** One line each, or why it has none. */
  ati?: string
  model?: string
  imsi?: string
  /** Set when the port is no modem that answers (nothing else then). */
  problem?: string
}

/**
 * The serial devices a modem may be on: /dev/serial/by-id/* first (their names say the maker
 * and the interface, and they survive a replug), then the /dev/ttyUSB* and /dev/ttyACM* no link
 * led to. With `scan`, every entry of that folder instead (tests, or another udev layout).
 * A device reached by two paths is probed once: two probes at once would mix their answers.
 */
export async function findSerialPorts(scan?: string): Promise<Array<{ path: string; device: string | null }>> {
  const entries = async (folder: string, keep: (name: string) => boolean) =>
    (await readdir(folder).catch(() => [] as string[]))
      .filter(keep)
      .sort(byNumber)
      .map((name) => join(folder, name))
  // tty* names last there too: a link's name is the one worth showing.
  const candidates = scan
    ? [...(await entries(scan, (name) => !name.startsWith('tty'))), ...(await entries(scan, (name) => name.startsWith('tty')))]
    : [...(await entries('/dev/serial/by-id', () => true)), ...(await entries('/dev', (name) => /^tty(USB|ACM)\d+$/.test(name)))]
  const found: Array<{ path: string; device: string | null }> = []
  const seen = new Set<string>()
  for (const path of candidates) {
    const device = await realpath(path).catch(() => path)
    if (seen.has(device)) continue
    seen.add(device)
    found.push({ path, device: device === path ? null : device })
  }
  return found
}

/** ttyUSB2 before ttyUSB10. */
function byNumber(a: string, b: string) {
  return a.localeCompare(b, 'en', { numeric: true })
}

/**
 * An IMSI says who the subscriber is: only its first five digits are shown, the network's
 * country and operator codes (MCC, MNC), which is what tells SIMs apart on a bench.
 */
export function maskImsi(imsi: string): string {
  return imsi.length > 5 ? `${imsi.slice(0, 5)}${'*'.repeat(imsi.length - 5)}` : imsi
}

/** ATI may print the IMEI (Huawei, SIMCom): only its first 8 digits, the model's type code, are shown. */
function maskSerials(line: string): string {
  return line.replace(/\d{14,}/g, (digits) => `${digits.slice(0, 8)}${'*'.repeat(digits.length - 8)}`)
}

/**
 * Asks one port what it is: `ATI` (maker, model, firmware), `AT+CGMM` (model) and `AT+CIMI`
 * (the SIM's IMSI, masked). Each command gets PROBE_COMMAND_MS; a port silent to a plain `AT`
 * is left at once. Sets echo off and numeric errors, as the driver's set-up does anyway.
 */
export async function probePort(path: string, options: { baudRate?: number; open?: () => Promise<ModemPort>; commandMs?: number } = {}): Promise<Omit<ProbedPort, 'path' | 'device'>> {
  const commandMs = options.commandMs ?? PROBE_COMMAND_MS
  let port: ModemPort
  try {
    port = await (options.open ?? (() => openSerialPort(path, options.baudRate, { probe: true })))()
  } catch (error) {
    return { problem: `cannot open it (${firstLine(error)})` }
  }
  const at = new AtChannel(port, systemClock, commandMs)
  const ask = (command: string) => at.command(command, { timeoutMs: commandMs })
  try {
    try {
      await ask('AT')
    } catch (error) {
      return { problem: error instanceof AtError && error.timedOut ? `no answer to AT within ${commandMs / 1000} s (not a modem, or a port of one that takes no commands)` : `AT: ${firstLine(error)}` }
    }
    await ask('ATE0').catch(() => {})
    await ask('AT+CMEE=1').catch(() => {})
    const answer = async (command: string) => {
      try {
        const lines = (await ask(command)).map((line) => line.replace(/^\+C\w+:\s*/, ''))
        return lines.length ? lines.join(', ') : '(empty answer)'
      } catch (error) {
        return error instanceof AtError ? `${error.result}${explain(error)}` : firstLine(error)
      }
    }
    const ati = maskSerials(await answer('ATI'))
    const model = await answer('AT+CGMM')
    const imsiAnswer = await answer('AT+CIMI')
    const imsi = /^\d{6,15}$/.test(imsiAnswer) ? maskImsi(imsiAnswer) : imsiAnswer
    return { ati, model, imsi }
  } finally {
    at.close()
  }
}

/** +CME ERROR values AT+CIMI answers without a usable SIM (TS 27.007 clause 9.2). */
function explain(error: AtError): string {
  const meaning: Record<number, string> = { 10: 'no SIM', 11: 'the SIM asks for its PIN', 12: 'the SIM asks for its PUK', 13: 'SIM failure', 14: 'SIM busy' }
  const cme = error.cme
  return cme !== null && meaning[cme] ? ` (${meaning[cme]})` : ''
}

function firstLine(error: unknown): string {
  return ((error as Error).message ?? String(error)).split('\n')[0]
}

/** Every port found, probed at once (each within its own bounds), in the order found. */
export async function listModems(options: { scan?: string; baudRate?: number; commandMs?: number } = {}): Promise<ProbedPort[]> {
  const ports = await findSerialPorts(options.scan)
  return Promise.all(ports.map(async ({ path, device }) => ({ path, device, ...(await probePort(path, options)) })))
}

/** The lines `--list` prints. */
export function describePorts(ports: ProbedPort[], scanned: string): string[] {
  if (!ports.length) return [`no serial device found in ${scanned}`]
  return ports.flatMap((port) => {
    const name = port.device ? `${port.path} (${port.device})` : port.path
    if (port.problem) return [`${name}: ${port.problem}`]
    return [`${name}: a modem`, `  ATI:      ${port.ati}`, `  AT+CGMM:  ${port.model}`, `  AT+CIMI:  ${port.imsi}`]
  })
}
