/*
 * The phone agent on its own:
 *   node build/agent/bin/phone_agent.js --gateway URL --pair CODE [--driver simulator|termux|modem]
 *   (modem: --device /dev/ttyUSB2 [--baud 115200])
 * Later runs: --credential <the credential the first run printed>.
 */
import { parseArgs } from 'node:util'
import { runPhone } from '../src/run_phone.js'

const { values } = parseArgs({
  options: {
    gateway: { type: 'string', default: 'http://127.0.0.1:3000' },
    driver: { type: 'string', default: 'simulator' },
    device: { type: 'string' },
    baud: { type: 'string' },
    pair: { type: 'string' },
    credential: { type: 'string' },
    name: { type: 'string' },
    'failure-rate': { type: 'string' },
    'delivery-rate': { type: 'string' },
  },
})

const phone = await runPhone(
  {
    gateway: values.gateway!,
    driver: values.driver === 'termux' || values.driver === 'modem' ? values.driver : 'simulator',
    modemPath: values.device,
    modemBaudRate: values.baud ? Number(values.baud) : undefined,
    pairingCode: values.pair,
    credential: values.credential,
    name: values.name,
    failureRate: values['failure-rate'] ? Number(values['failure-rate']) : undefined,
    deliveryRate: values['delivery-rate'] ? Number(values['delivery-rate']) : undefined,
  },
  (line) => console.log(`[phone] ${line}`)
)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void phone.stop().then(() => process.exit(0)))
