import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * One modem of a configuration file (`--config FILE`): a phone of its own at the gateway, with
 * its own pairing, its own state file and its own SIM.
 */
export interface ModemEntry {
  /** Shown in the agent's log lines and, at pairing, as the phone's name. */
  name: string
  /** The serial device: the /dev/serial/by-id/ path, which survives a replug. */
  device: string
  baud?: number
  pin?: string
  /** The pairing code, used only while `state` holds no credential yet. */
  pair?: string
  /** The modem's own state file (credential, handled orders, delivery references). */
  state: string
}

export interface ModemConfig {
  gateway?: string
  modems: ModemEntry[]
}

const ENTRY_FIELDS = new Set(['name', 'device', 'baud', 'pin', 'pair', 'state'])

/**
 * Reads and checks a configuration file. Relative `state` paths are taken from the file's own
 * folder, so the file and the states it names move together. Every problem is one line naming
 * the modem and the field.
 */
export function readModemConfig(file: string): ModemConfig {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`cannot read the configuration file ${file}: ${(error as Error).message}`)
  }
  const fail = (what: string): never => {
    throw new Error(`configuration file ${file}: ${what}`)
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail('must be a JSON object with a "modems" list')
  const { gateway, modems, ...others } = raw as Record<string, unknown>
  if (Object.keys(others).length) fail(`unknown field "${Object.keys(others)[0]}" (gateway, modems)`)
  if (gateway !== undefined && (typeof gateway !== 'string' || !/^https?:\/\//.test(gateway))) fail('"gateway" must be an http:// or https:// address')
  if (!Array.isArray(modems) || !modems.length) fail('"modems" must be a list of at least one modem')
  const entries = (modems as unknown[]).map((value, index): ModemEntry => {
    const at = `modem ${index + 1}`
    if (!value || typeof value !== 'object' || Array.isArray(value)) return fail(`${at} must be an object`)
    const entry = value as Record<string, unknown>
    const unknown = Object.keys(entry).find((key) => !ENTRY_FIELDS.has(key))
    if (unknown) fail(`${at}: unknown field "${unknown}" (${[...ENTRY_FIELDS].join(', ')})`)
    const text = (field: string, required: boolean) => {
      const given = entry[field]
      if (given === undefined && !required) return undefined
      if (typeof given !== 'string' || !given.trim()) return fail(`${at}: "${field}" must be a non-empty string`)
      return given
    }
    const device = text('device', true)!
    const state = text('state', true)!
    const baud = entry.baud
    if (baud !== undefined && (!Number.isInteger(baud) || (baud as number) <= 0)) fail(`${at}: "baud" must be a whole number`)
    // Never echoed: a wrong PIN is named, not shown.
    const pin = text('pin', false)
    if (pin !== undefined && !/^\d{4,8}$/.test(pin)) fail(`${at}: "pin" must be 4 to 8 digits`)
    return {
      name: text('name', false) ?? `Modem ${index + 1}`,
      device,
      baud: baud as number | undefined,
      pin,
      pair: text('pair', false),
      state: resolve(dirname(resolve(file)), state),
    }
  })
  // Two phones on one device would interleave their commands; two on one state file would
  // share a credential and replace each other's socket at the gateway.
  for (const field of ['device', 'state', 'name'] as const) {
    const seen = new Set<string>()
    for (const entry of entries) {
      if (seen.has(entry[field])) fail(`two modems have the same "${field}" (${field === 'name' ? entry.name : 'each needs its own'})`)
      seen.add(entry[field])
    }
  }
  return { gateway: gateway as string | undefined, modems: entries }
}
