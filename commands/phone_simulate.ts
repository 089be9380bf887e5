import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { runPhone } from '../agent/src/run_phone.js'

/**
 * Pairs a simulated phone with a running gateway and keeps it connected, so a newcomer can send
 * a first SMS end to end in minutes, without a phone.
 */
export default class PhoneSimulate extends BaseCommand {
  static commandName = 'phone:simulate'
  static description = 'Pair and run a simulated phone against a running gateway (Ctrl-C to stop)'
  static help = [
    'Create a pairing code first (POST /api/v1/devices/pairing-codes), then:',
    '  node ace phone:simulate --pair 7KQ4M2XD',
    'Later runs reconnect with the credential the first run printed:',
    '  node ace phone:simulate --credential dev_1.xxxx',
  ]
  static options: CommandOptions = { startApp: false, staysAlive: true }

  @flags.string({ description: 'The gateway address', default: `http://127.0.0.1:${process.env.PORT || 3000}` })
  declare gateway: string

  @flags.string({ description: 'A pairing code (first run)' })
  declare pair?: string

  @flags.string({ description: 'The credential printed by an earlier run' })
  declare credential?: string

  @flags.string({ description: 'The phone name shown in the dashboard', default: 'Simulated phone' })
  declare name: string

  @flags.number({ description: 'Share of sends that fail, 0 to 1', default: 0 })
  declare failureRate: number

  @flags.number({ description: 'Share of sent messages that get a delivery receipt, 0 to 1', default: 1 })
  declare deliveryRate: number

  async run() {
    const phone = await runPhone(
      {
        gateway: this.gateway,
        pairingCode: this.pair,
        credential: this.credential,
        name: this.name,
        failureRate: this.failureRate,
        deliveryRate: this.deliveryRate,
      },
      (line) => this.logger.info(line)
    )
    await new Promise<void>((resolve) => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve())
    })
    await phone.stop()
  }
}
