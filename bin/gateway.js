#!/usr/bin/env node
// `gateway <command>`: the operator's commands, run as the Ace commands gateway:<command>.
//   gateway start | stop | restart | logs | update | backup
// The data folder is GATEWAY_DATA_DIR, default ./data of the folder the command is run from;
// `gateway backup` writes its archive in that folder too.
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const commands = ['start', 'stop', 'restart', 'logs', 'update', 'backup']
const [command, ...rest] = process.argv.slice(2)
if (!commands.includes(command)) {
  console.error(`usage: gateway <${commands.join('|')}>   (gateway <command> --help for more)`)
  process.exit(command === undefined || command === '--help' ? 0 : 1)
}
// Checked here too, before anything touches the data folder (the command checks it again).
if (command === 'backup' && process.getuid?.() !== 0) {
  console.error('gateway backup must run as root: the archive holds the master key')
  process.exit(1)
}
const appRoot = fileURLToPath(new URL('..', import.meta.url))
const env = {
  ...process.env,
  GATEWAY_DATA_DIR: resolve(process.env.GATEWAY_DATA_DIR?.trim() || './data'),
  GATEWAY_COMMAND_CWD: process.cwd(),
}
// Ace runs from the application folder (its TypeScript setup lives there). A signal sent to this
// process (a service manager stopping `gateway logs`) goes to the command too, never orphaning it.
const child = spawn(process.execPath, ['ace.js', `gateway:${command}`, ...rest], { stdio: 'inherit', cwd: appRoot, env })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
child.on('exit', (status) => process.exit(status ?? 1))
