// A network namespace of the benchmark's own, joined to this machine by a veth pair on a private
// /30: webhook receivers run inside it, so the gateway calls them under its real destination
// policy (private ranges allowed, the machine itself never). Needs root and iproute2.
import { execFileSync, spawn } from 'node:child_process'

export function createNamespace(name = `gwbench${process.pid}`) {
  const hostSide = `${name.slice(0, 10)}h`
  const nsSide = `${name.slice(0, 10)}n`
  const ip = (...args) => execFileSync('ip', args, { stdio: 'pipe' })
  ip('netns', 'add', name)
  try {
    ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', nsSide)
    ip('link', 'set', nsSide, 'netns', name)
    ip('addr', 'add', '10.213.0.1/30', 'dev', hostSide)
    ip('link', 'set', hostSide, 'up')
    ip('netns', 'exec', name, 'ip', 'addr', 'add', '10.213.0.2/30', 'dev', nsSide)
    ip('netns', 'exec', name, 'ip', 'link', 'set', nsSide, 'up')
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up')
  } catch (error) {
    destroy()
    throw error
  }
  function destroy() {
    try {
      ip('link', 'del', hostSide)
    } catch {}
    try {
      ip('netns', 'del', name)
    } catch {}
  }
  return {
    name,
    /** The address of the namespace's side: where its servers are reached from the gateway. */
    address: '10.213.0.2',
    /** Runs a command inside the namespace. */
    spawn(command, args, options = {}) {
      return spawn('ip', ['netns', 'exec', name, command, ...args], options)
    },
    destroy,
  }
}
