// Reads a running gateway from the inside through its inspector (started with
// `--inspect=127.0.0.1:<port>`): process.memoryUsage(), a full garbage collection (with
// `--expose-gc`) and heap snapshots. Loopback only; used by bench/memory.js.
import { writeFileSync } from 'node:fs'
import WebSocket from 'ws'

export async function connectInspector(port) {
  let targets
  for (let attempt = 0; ; attempt++) {
    try {
      targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()
      break
    } catch (error) {
      if (attempt > 100) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  const socket = new WebSocket(targets[0].webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 0 })
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let nextId = 0
  const pending = new Map()
  const listeners = new Map()
  socket.on('message', (data) => {
    const message = JSON.parse(data)
    if (message.id !== undefined) {
      const waiting = pending.get(message.id)
      pending.delete(message.id)
      if (message.error) waiting?.reject(new Error(message.error.message))
      else waiting?.resolve(message.result)
    } else listeners.get(message.method)?.(message.params)
  })
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve, reject })
      socket.send(JSON.stringify({ id, method, params }))
    })
  const evaluate = async (expression) => {
    const { result, exceptionDetails } = await call('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text)
    return result.value
  }
  return {
    /** process.memoryUsage() in MB, after a full collection when `collect` (needs --expose-gc). */
    async memory({ collect = false } = {}) {
      const usage = await evaluate(`(${collect ? 'globalThis.gc?.(), ' : ''}JSON.stringify(process.memoryUsage()))`)
      const mb = (bytes) => Math.round(bytes / 1048576)
      const { rss, heapTotal, heapUsed, external, arrayBuffers } = JSON.parse(usage)
      return { rss: mb(rss), heapTotal: mb(heapTotal), heapUsed: mb(heapUsed), external: mb(external), arrayBuffers: mb(arrayBuffers) }
    },
    /** Writes a heap snapshot (Chrome DevTools' format) to `path`. */
    async snapshot(path) {
      const chunks = []
      listeners.set('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => chunks.push(chunk))
      await call('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
      listeners.delete('HeapProfiler.addHeapSnapshotChunk')
      writeFileSync(path, chunks.join(''))
    },
    evaluate,
    close: () => socket.close(),
  }
}

/** A heap snapshot summarised: self size (MB) and count per constructor or type, largest first. */
export function heapSummary(snapshot, top = 25) {
  const { meta } = snapshot.snapshot
  const fields = meta.node_fields.length
  const typeNames = meta.node_types[0]
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => meta.node_fields.indexOf(field))
  const groups = new Map()
  for (let index = 0; index < snapshot.nodes.length; index += fields) {
    const type = typeNames[snapshot.nodes[index + typeAt]]
    const name = type === 'object' || type === 'closure' || type === 'native' ? snapshot.strings[snapshot.nodes[index + nameAt]] : `(${type})`
    const group = groups.get(name) ?? { name, count: 0, bytes: 0 }
    group.count++
    group.bytes += snapshot.nodes[index + sizeAt]
    groups.set(name, group)
  }
  return [...groups.values()]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map((group) => ({ name: group.name.slice(0, 60), count: group.count, mb: Math.round(group.bytes / 10485.76) / 100 }))
}
