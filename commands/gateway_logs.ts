import { createReadStream, existsSync, statSync } from 'node:fs'
import { flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { DataFolder } from '#core/data_folder/data_folder'
import { GatewayCommand } from '#core/service/gateway_command'

export default class GatewayLogs extends GatewayCommand {
  static commandName = 'gateway:logs'
  static description = "Show the gateway's log (<data>/logs/gateway.log) and follow it (Ctrl-C to stop)"
  static options: CommandOptions = { startApp: false, staysAlive: true }

  @flags.number({ description: 'Lines to show before following', default: 50 })
  declare lines: number

  @flags.boolean({ description: 'Follow the log as it grows', default: true, showNegatedVariantInHelp: true })
  declare follow: boolean

  async run() {
    const file = DataFolder.current().logFile
    if (!existsSync(file)) {
      this.logger.error(`no log yet at ${file}`)
      this.exitCode = 1
      return
    }
    let position = await this.#printTail(file)
    if (!this.follow) return
    // Ctrl-C, or a service manager's SIGTERM: stop following and exit (the command stays alive
    // only while it follows).
    let stopped = false
    const stop = () => (stopped = true)
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop)
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      let size: number
      try {
        size = statSync(file).size
      } catch {
        // Between the rotation's rename and the new file: look again shortly.
        continue
      }
      // The file was replaced (rotated) or truncated: start again from its beginning.
      if (size < position) position = 0
      if (size > position) position = await this.#print(file, position, size)
    }
    await this.terminate()
  }

  async #printTail(file: string): Promise<number> {
    const { size } = statSync(file)
    // The tail is read from at most the last megabyte: a long log is not read whole.
    const start = Math.max(0, size - 1_048_576)
    const chunks: Buffer[] = []
    for await (const chunk of createReadStream(file, { start, end: size - 1 })) chunks.push(chunk as Buffer)
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean)
    for (const line of lines.slice(-this.lines)) process.stdout.write(`${line}\n`)
    return size
  }

  async #print(file: string, from: number, to: number): Promise<number> {
    for await (const chunk of createReadStream(file, { start: from, end: to - 1 })) process.stdout.write(chunk as Buffer)
    return to
  }
}
