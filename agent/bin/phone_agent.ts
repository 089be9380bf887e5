/*
 * The phone agent on its own (no gateway code): `node build/agent/bin/phone_agent.js --help`.
 */
import { parseArgs } from 'node:util'
import { runPhone } from '../src/run_phone.js'
import { runModems } from '../src/run_modems.js'
import { readModemConfig } from '../src/modem_config.js'
import { describePorts, listModems } from '../src/modem/list_modems.js'
import { SIMULATOR_FLAGS } from '../src/simulator_flags.js'

const USAGE = `Usage: phone_agent.js --gateway URL (--pair CODE | --credential CREDENTIAL | --state FILE) [options]
       phone_agent.js [--gateway URL] --config FILE     (several modems, each a phone of its own)
       phone_agent.js --list [--scan DIR] [--baud RATE] (the modems on this computer)

  --gateway URL          The gateway address (default http://127.0.0.1:3000)
  --pair CODE            A pairing code (first run); prints the credential for later runs,
                         or keeps it in the --state file
  --credential VALUE     The credential printed by an earlier run
  --name NAME            The phone name shown in the dashboard
  --driver NAME          simulator (default), termux (Android phone under Termux) or modem
  --device PATH          modem: the serial device, e.g. /dev/ttyUSB2
  --baud RATE            modem: the serial speed, e.g. 115200
  --pin PIN              modem: the SIM's PIN, entered when the SIM asks for it (or the
                         MODEM_PIN environment variable, which other users cannot read)
  --state FILE           Keep the credential and handled orders in FILE (mode 0600): a restart
                         needs only --state FILE and never sends an order twice
  --config FILE          modem: several modems from a JSON file, {"gateway"?, "modems": [{"device",
                         "state", "pair"?, "baud"?, "pin"?, "name"?}]} (docs/phones.md)
${Object.entries(SIMULATOR_FLAGS)
  .map(([flag, description]) => `  --${`${flag} N`.padEnd(21)}simulator: ${description}`)
  .join('\n')}
  --list                 Finds the serial devices (/dev/serial/by-id/*, then /dev/ttyUSB* and
                         /dev/ttyACM*) and prints what each is: ATI, AT+CGMM, AT+CIMI (the IMSI
                         masked past its first 5 digits); 2 s per command. Stop the agents first:
                         a port in use answers them, not the list
  --scan DIR             --list: the devices in DIR instead
  --help                 This text

Exits non-zero with one line on stderr when it cannot go on (bad flag, pairing refused,
credential refused: the phone must then be paired again).`

const DEFAULT_GATEWAY = 'http://127.0.0.1:3000'

try {
  const { values } = parseArgs({
    options: {
      'gateway': { type: 'string' },
      'driver': { type: 'string', default: 'simulator' },
      'device': { type: 'string' },
      'baud': { type: 'string' },
      'pin': { type: 'string' },
      'pair': { type: 'string' },
      'credential': { type: 'string' },
      'name': { type: 'string' },
      'state': { type: 'string' },
      'config': { type: 'string' },
      'list': { type: 'boolean' },
      'scan': { type: 'string' },
      'help': { type: 'boolean' },
      ...(Object.fromEntries(Object.keys(SIMULATOR_FLAGS).map((flag) => [flag, { type: 'string' }])) as Record<keyof typeof SIMULATOR_FLAGS, { type: 'string' }>),
    },
  })
  if (values.help) {
    console.log(USAGE)
    process.exit(0)
  }
  if (values.driver !== 'simulator' && values.driver !== 'termux' && values.driver !== 'modem') {
    throw new Error(`--driver must be simulator, termux or modem (got "${values.driver}")`)
  }
  if (values.baud !== undefined && !/^[1-9]\d*$/.test(values.baud)) throw new Error(`--baud must be a whole number (got "${values.baud}")`)
  if (values.scan !== undefined && !values.list) throw new Error('--scan goes with --list')
  if (values.list) {
    const ports = await listModems({ scan: values.scan, baudRate: values.baud ? Number(values.baud) : undefined })
    for (const line of describePorts(ports, values.scan ?? '/dev/serial/by-id, /dev/ttyUSB*, /dev/ttyACM*')) console.log(line)
    process.exit(0)
  }
  if (values.config !== undefined) {
    // Each modem's own settings are in the file: a flag beside it would say which one it is for.
    const beside = (['pair', 'credential', 'state', 'device', 'baud', 'pin', 'name', ...Object.keys(SIMULATOR_FLAGS)] as const).filter(
      (flag) => values[flag as keyof typeof values] !== undefined
    )
    if (beside.length) throw new Error(`--config takes each modem's settings from the file, not --${beside[0]}`)
    if (values.driver !== 'simulator' && values.driver !== 'modem') throw new Error('--config is for the modem driver')
    const config = readModemConfig(values.config)
    const modems = runModems({ gateway: values.gateway ?? config.gateway ?? DEFAULT_GATEWAY, modems: config.modems }, (line) => console.log(`[phone] ${line}`))
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void modems.stop())
    await modems.ended
    process.exit(0)
  }
  const phone = await runPhone(
    {
      gateway: values.gateway ?? DEFAULT_GATEWAY,
      driver: values.driver,
      modemPath: values.device,
      modemBaudRate: values.baud ? Number(values.baud) : undefined,
      modemPin: values.pin ?? (process.env.MODEM_PIN || undefined),
      pairingCode: values.pair,
      credential: values.credential,
      name: values.name,
      stateFile: values.state,
      simulator: {
        'sims': values.sims,
        'latency': values.latency,
        'failure-rate': values['failure-rate'],
        'delivery-rate': values['delivery-rate'],
        'inbound-every': values['inbound-every'],
      },
    },
    (line) => console.log(`[phone] ${line}`)
  )
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void phone.stop())
  await phone.ended
  process.exit(0)
} catch (error) {
  // One line, whatever the source (node's argument parser writes several).
  console.error(`[phone] ${(error as Error).message.replace(/\s*\n\s*/g, ' ')}`)
  process.exit(1)
}
