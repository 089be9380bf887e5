import { randomInt } from 'node:crypto'
import { AGENT_VERSION, PhoneAgent, SocketRefused } from './phone_agent.js'
import { HandledOrders } from './handled_orders.js'
import { SimulatorDriver } from './drivers/simulator.js'
import { TermuxDriver } from './drivers/termux.js'
import { AtModemDriver } from './drivers/at_modem.js'
import { simulatorSettings, type SimulatorFlagValues } from './simulator_flags.js'
import type { SmsDriver } from './sms_driver.js'

export interface PhoneOptions {
  gateway: string
  /**
   * simulator (default): sends nothing over the air; termux: an Android phone under Termux;
   * modem: a serial GSM modem (AT commands) at `modemPath`.
   */
  driver?: 'simulator' | 'termux' | 'modem'
  modemPath?: string
  modemBaudRate?: number
  /** The modem SIM's PIN, entered when the SIM asks for it. */
  modemPin?: string
  /** A pairing code (first run) or the credential of an earlier run. */
  pairingCode?: string
  credential?: string
  name?: string
  /** The simulator's flags as typed (see simulator_flags.ts); checked here. */
  simulator?: SimulatorFlagValues
  /** A file where handled orders are kept across restarts (docs/device-protocol.md §5). */
  stateFile?: string
  /** Wait between connection attempts (default 5 s). */
  retryMs?: number
  /**
   * The pairing code is used only while the state file holds no credential: a configuration
   * file keeps its codes after the first run, and a used code would be refused.
   */
  pairUnlessPaired?: boolean
}

/** Ends the agent: retrying cannot help, the operator must act. */
export class PhoneStopped extends Error {}

/** A number's first characters only: logs never carry a full phone number. */
const mask = (number: string) => `${number.slice(0, 4)}…`

/**
 * Pairs (or reconnects) a phone and keeps it connected until stopped, reconnecting when the
 * socket drops. With the simulator driver: a first SMS end to end without a real phone.
 * `ended` resolves after stop() and rejects with a PhoneStopped when the gateway refuses the
 * phone for good (unpaired, or a credential it no longer knows).
 */
export async function runPhone(options: PhoneOptions, log: (line: string) => void) {
  const kind = options.driver ?? 'simulator'
  if (kind !== 'simulator' && options.simulator && Object.values(options.simulator).some((value) => value !== undefined)) {
    throw new Error(`--sims, --latency, --failure-rate, --delivery-rate and --inbound-every are for the simulator driver, not ${kind}`)
  }
  if (kind === 'modem' && !options.modemPath) throw new Error('the modem driver needs the serial device (--device /dev/ttyUSB2)')
  const handled = new HandledOrders(options.stateFile)
  const driver: SmsDriver & { start?(): unknown; stop?(): void } =
    kind === 'termux'
      ? new TermuxDriver()
      : kind === 'modem'
        ? new AtModemDriver({
            path: options.modemPath!,
            baudRate: options.modemBaudRate,
            pin: options.modemPin,
            // Kept in the state file: a long SMS sent just after a restart must not take the
            // reference of one sent just before to the same number (the phone would mix their parts).
            nextReference: () => {
              handled.concatenationReference = ((handled.concatenationReference ?? randomInt(256)) + 1) & 0xff
              handled.save().catch((error: Error) => log(`cannot write the state file (${error.message})`))
              return handled.concatenationReference
            },
            // Kept in the state file: a report arriving after a restart still finds its message.
            deliveries: {
              restored: handled.deliveries,
              changed: (waiting) => {
                handled.deliveries = waiting
                handled.save().catch((error: Error) => log(`cannot write the state file (${error.message})`))
              },
            },
            log: (line) => log(`modem: ${line}`),
          })
        : new SimulatorDriver(simulatorSettings(options.simulator ?? {}))
  // Fails now, with a clear line, if the state file cannot be written.
  await handled.save().catch((error: Error) => {
    throw new Error(`cannot write the state file ${options.stateFile}: ${error.message}`)
  })
  // Started before pairing: a wrong serial device must not use up the single-use pairing code.
  await driver.start?.()
  const pairing = options.pairUnlessPaired && handled.credential ? undefined : options.pairingCode
  let credential = options.credential ?? (pairing ? undefined : handled.credential ?? undefined)
  if (!credential) {
    try {
      if (!pairing) {
        throw new Error('give a pairing code (--pair), the credential of an earlier run (--credential), or the --state file of an earlier run')
      }
      const paired = await PhoneAgent.pair(options.gateway, pairing, {
        name: options.name ?? { simulator: 'Simulated phone', termux: 'Android phone', modem: 'GSM modem' }[kind],
        model: { simulator: 'Simulator', termux: 'Termux', modem: 'AT modem' }[kind],
        appVersion: AGENT_VERSION,
        sims: driver.sims(),
      })
      credential = paired.credential
      if (options.stateFile) {
        // Kept in the state file (0600), not printed: a terminal or a journal is no place for it.
        handled.credential = credential
        await handled.save()
        log(`paired as device ${paired.device.id}; the credential is kept in ${options.stateFile}: to reconnect later use --state ${options.stateFile}`)
      } else {
        log(`paired as device ${paired.device.id}; to reconnect later use --credential ${credential} (or pair with --state FILE to keep it there)`)
      }
    } catch (error) {
      driver.stop?.()
      throw error
    }
  }
  if (options.stateFile && handled.credential !== credential) {
    // A credential given on the command line is kept too: next time --state alone will do.
    handled.credential = credential
    await handled.save()
  }
  const agent = new PhoneAgent({
    gatewayUrl: options.gateway,
    credential,
    driver,
    handled,
    onStateError: (error) => log(`cannot write the state file (${error.message})`),
  })
  const originalSend = driver.send.bind(driver)
  driver.send = async (order) => {
    const outcome = await originalSend(order)
    log(`SMS ${order.messageId} to ${mask(order.to)} from SIM ${order.simSlot}: ${outcome.ok ? 'sent' : `failed (${outcome.reason})`}`)
    return outcome
  }
  driver.onInbound((sms) => log(`SMS received from ${mask(sms.from)} on SIM ${sms.simSlot}`))

  const retryMs = options.retryMs ?? 5000
  let stopped = false
  let wake = () => {}
  /** Waits retryMs, or until woken (null: only woken). */
  const pause = (ms: number | null = retryMs) =>
    new Promise<void>((resolve) => {
      // Waiting for a modem to come back, the agent has neither socket nor serial port open
      // (the driver's waits do not hold the process): this keeps it running meanwhile.
      const timer = ms === null ? setInterval(() => {}, 3_600_000) : setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  // A modem away or being reset would fail every order it is given, spending their attempts:
  // the phone goes offline at the gateway (its socket closed, docs/device-protocol.md §3) until
  // the modem is set up again. An order under way is answered by the driver as before.
  let driverReady = true
  driver.onReadiness?.((ready) => {
    driverReady = ready
    if (ready) {
      log('the modem is ready again: connecting')
      wake()
    } else {
      log('the modem is not ready: offline at the gateway until it is set up again')
      void agent.disconnect()
    }
  })
  const pairAgain = 'the phone must be paired again (new pairing code, --pair CODE)'
  // The one loop that connects: a second one beside it opened two sockets at once (the crash
  // after a gateway restart). It waits between attempts, after a drop too, so two agents
  // sharing a credential do not replace each other in a tight loop.
  const keepConnected = async () => {
    while (!stopped) {
      if (!driverReady) {
        await pause(null)
        continue
      }
      try {
        if (!agent.connected) {
          await agent.connect()
          log('connected')
          await agent.reportStatus()
        }
        const code = await agent.disconnected()
        if (stopped) return
        if (code === 4001) throw new PhoneStopped(`the gateway unpaired this phone (close code 4001); ${pairAgain}`)
        // Closed by the agent itself for its modem: it waits for the modem, not retryMs.
        if (!driverReady) continue
        log(`connection closed (${code}); reconnecting in ${retryMs / 1000} s`)
      } catch (error) {
        if (stopped || error instanceof PhoneStopped) throw error
        if (error instanceof SocketRefused && error.status === 401) {
          throw new PhoneStopped(`the gateway refused this phone's credential (401: unpaired, or the gateway lost its secret.key); ${pairAgain}`)
        }
        if (!driverReady) continue
        log(`cannot connect (${(error as Error).message}); retrying in ${retryMs / 1000} s`)
      }
      if (!stopped) await pause()
    }
  }
  const ended = keepConnected()
    .catch((error) => {
      if (!stopped) throw error
    })
    .finally(async () => {
      stopped = true
      driver.stop?.()
      await agent.disconnect()
    })
  return {
    agent,
    driver,
    ended,
    async stop() {
      stopped = true
      wake()
      await agent.disconnect()
      await ended.catch(() => {})
      // An ack that came just before the stop is written down: a restart must not report that
      // outcome again as if the gateway had never heard of it.
      await handled.written()
    },
  }
}
