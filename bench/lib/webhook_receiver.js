// A webhook receiver for bench/webhooks.js: verifies every call's signature and records the
// latency from the event (`at` in the body) to its arrival. `hang` mode never answers.
//   node webhook_receiver.js <host> <port> <fast|hang> <secret>
// GET /__stats answers {count, badSignatures, latenciesMs} and starts counting again.
import http from 'node:http'
import { createHmac } from 'node:crypto'

const [host, port, mode, secret] = process.argv.slice(2)
let count = 0
let badSignatures = 0
let latencies = []

http
  .createServer((request, response) => {
    if (request.url === '/__stats') {
      response.setHeader('content-type', 'application/json')
      response.end(JSON.stringify({ count, badSignatures, latenciesMs: latencies }))
      count = 0
      badSignatures = 0
      latencies = []
      return
    }
    if (mode === 'hang') return
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const expected = `sha256=${createHmac('sha256', secret).update(`${request.headers['x-timestamp']}.${request.headers['x-delivery-id']}.${raw}`).digest('hex')}`
      if (expected !== request.headers['x-signature']) badSignatures++
      count++
      latencies.push(Date.now() - Date.parse(JSON.parse(raw).at))
      response.writeHead(204).end()
    })
  })
  .listen(Number(port), host, () => console.log('listening'))
