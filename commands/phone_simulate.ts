import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { runPhone } from '../agent/src/run_phone.js'
import { SIMULATOR_FLAGS } from '../agent/src/simulator_flags.js'
import { runSmsgatePhone } from '../agent/src/smsgate/run_smsgate_phone.js'

/**
 * Pairs a simulated phone with a running gateway and keeps it connected, so a newcomer can send
 * a first SMS end to end in minutes, without a phone: our agent (the default), or the SMSGate
 * Android app speaking its own protocol (`--app smsgate`, agent/src/smsgate). The simulator
 * flags are those of the agent bin (agent/src/simulator_flags.ts), checked there.
 */
export default class PhoneSimulate extends BaseCommand {
  static commandName = 'phone:simulate'
  static description = 'Pair and run a simulated phone against a running gateway (Ctrl-C to stop)'
  static help = [
    'Create a pairing code first (POST /api/v1/devices/pairing-codes), then:',
    '  node ace phone:simulate --pair 7KQ4M2XD',
    'Later runs reconnect with the credential the first run printed:',
    '  node ace phone:simulate --credential dev_1.xxxx',
    'Or keep it in a state file (with the orders handled, mode 0600), printed nowhere:',
    '  node ace phone:simulate --pair 7KQ4M2XD --state phone.json   then   --state phone.json',
    'Two SIMs, slow and unreliable sends, a reply every 30 s:',
    '  node ace phone:simulate --credential dev_1.xxxx --sims 2 --latency 1500 \\',
    '    --failure-rate 0.1 --delivery-rate 0.8 --inbound-every 30',
    'A refused pairing code or credential stops it with a non-zero exit status.',
    'A refused credential (unpaired, or the gateway lost its secret.key): pair again.',
    '',
    'The SMSGate Android app instead of our agent (docs/smsgate.md), with',
    'a code made with {"app": "smsgate"} (8 digits):',
    '  node ace phone:simulate --app smsgate --pair 12345678 --state app.json',
    '  node ace phone:simulate --app smsgate --state app.json     (later)',
    '--gateway may also be the apiUrl the code came with. The simulator',
    'flags are the same; its token is kept only in --state FILE.',
  ]
  static options: CommandOptions = { startApp: false, staysAlive: true }

  @flags.string({ flagName: 'app', description: 'The phone to simulate: agent (our agent, default) or smsgate (the SMSGate Android app)', default: 'agent' })
  declare phoneApp: string

  @flags.string({ description: 'The gateway address', default: `http://127.0.0.1:${process.env.PORT || 3000}` })
  declare gateway: string

  @flags.string({ description: 'A pairing code (first run)' })
  declare pair?: string

  @flags.string({ description: 'The credential printed by an earlier run' })
  declare credential?: string

  @flags.string({ description: 'The phone name shown in the dashboard', default: 'Simulated phone' })
  declare name: string

  @flags.string({ description: 'Keep the credential and handled orders in this file: a restart needs only --state, never sends an order twice' })
  declare state?: string

  @flags.string({ description: SIMULATOR_FLAGS['sims'] })
  declare sims?: string

  @flags.string({ description: SIMULATOR_FLAGS['latency'] })
  declare latency?: string

  @flags.string({ flagName: 'failure-rate', description: SIMULATOR_FLAGS['failure-rate'] })
  declare failureRate?: string

  @flags.string({ flagName: 'delivery-rate', description: SIMULATOR_FLAGS['delivery-rate'] })
  declare deliveryRate?: string

  @flags.string({ flagName: 'inbound-every', description: SIMULATOR_FLAGS['inbound-every'] })
  declare inboundEvery?: string

  async run() {
    try {
      if (this.phoneApp !== 'agent' && this.phoneApp !== 'smsgate') throw new Error(`--app must be agent or smsgate (got "${this.phoneApp}")`)
      const simulator = {
        'sims': this.sims,
        'latency': this.latency,
        'failure-rate': this.failureRate,
        'delivery-rate': this.deliveryRate,
        'inbound-every': this.inboundEvery,
      }
      const log = (line: string) => this.logger.info(line)
      if (this.phoneApp === 'smsgate' && this.credential) {
        throw new Error('--credential is for --app agent: the SMSGate app keeps its token in --state FILE')
      }
      const phone =
        this.phoneApp === 'smsgate'
          ? await runSmsgatePhone({ gateway: this.gateway, pairingCode: this.pair, name: this.name, stateFile: this.state, simulator }, log)
          : await runPhone(
        {
          gateway: this.gateway,
          pairingCode: this.pair,
          credential: this.credential,
          name: this.name,
          stateFile: this.state,
          simulator,
        },
        log
      )
      const signalled = new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve())
      })
      await Promise.race([phone.ended, signalled]).finally(() => phone.stop())
    } catch (error) {
      // One line, not Ace's rendering of a thrown error. Ace takes a staysAlive command's exit
      // status from a terminate hook it adds only after run() returns: set the process's here.
      this.logger.error((error as Error).message)
      this.exitCode = 1
      process.exitCode = 1
    }
  }
}
