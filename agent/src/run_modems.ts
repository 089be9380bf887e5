import { ModemStartError } from './drivers/at_modem.js'
import type { ModemEntry } from './modem_config.js'
import { PhoneStopped, runPhone } from './run_phone.js'

/** Wait before starting again a modem that could not start (its device not there yet, no network). */
export const MODEM_START_RETRY_MS = 30_000

type Phone = Awaited<ReturnType<typeof runPhone>>

/**
 * Whether a modem's start failure needs the operator, so trying again cannot help or would do
 * harm: a PIN tried again and again blocks the SIM (three wrong ones ask for its PUK), a used
 * pairing code stays used. Anything else (the device not plugged in yet, the network not
 * found, the gateway unreachable) may pass.
 */
function needsOperator(error: unknown): boolean {
  if (error instanceof PhoneStopped) return true
  if (error instanceof ModemStartError) return error.step.startsWith('AT+CPIN')
  return /^(pairing refused|give a pairing code|cannot (read|write) the state file)/.test((error as Error).message)
}

/**
 * Several modems in one process, each a phone of its own (runPhone with the modem driver): its
 * own pairing, state file, socket and one SMS at a time. One modem that cannot start, or goes
 * away, leaves the others running. `ended` resolves after stop(), and rejects once every modem
 * stopped for a reason only the operator can fix.
 */
export function runModems(options: { gateway: string; modems: ModemEntry[]; retryMs?: number; startRetryMs?: number }, log: (line: string) => void) {
  let stopping = false
  const running = new Map<string, Phone>()
  const wakes = new Set<() => void>()
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        wakes.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      wakes.add(wake)
    })

  const runOne = async (modem: ModemEntry): Promise<string | null> => {
    const say = (line: string) => log(`${modem.name}: ${line}`)
    while (!stopping) {
      try {
        const phone = await runPhone(
          {
            gateway: options.gateway,
            driver: 'modem',
            modemPath: modem.device,
            modemBaudRate: modem.baud,
            modemPin: modem.pin,
            pairingCode: modem.pair,
            pairUnlessPaired: true,
            name: modem.name,
            stateFile: modem.state,
            retryMs: options.retryMs,
          },
          say
        )
        if (stopping) {
          await phone.stop()
          return null
        }
        running.set(modem.name, phone)
        await phone.ended
        return null
      } catch (error) {
        running.delete(modem.name)
        if (stopping) return null
        const message = (error as Error).message
        if (needsOperator(error)) {
          say(`stopped: ${message}`)
          return message
        }
        const retryMs = options.startRetryMs ?? MODEM_START_RETRY_MS
        say(`cannot start (${message}); trying again in ${retryMs / 1000} s`)
        await pause(retryMs)
      }
    }
    return null
  }

  const outcomes = Promise.all(options.modems.map((modem) => runOne(modem)))
  const ended = outcomes.then((reasons) => {
    if (stopping) return
    throw new PhoneStopped(`every modem stopped (${reasons.map((reason, index) => `${options.modems[index].name}: ${reason}`).join('; ')})`)
  })
  // Observed here; the caller awaits it.
  ended.catch(() => {})
  return {
    /** The phones running now, by modem name. */
    running,
    ended,
    async stop() {
      stopping = true
      for (const wake of [...wakes]) wake()
      await Promise.all([...running.values()].map((phone) => phone.stop()))
      await outcomes
    },
  }
}
