// CPU time of a process on Linux from /proc, split into its main thread (JavaScript) and its
// other threads (the libuv pool where SQLite statements run, and V8's helpers), so a benchmark
// can say which one a rate is bound by.
import { readdirSync, readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

function ticks(path) {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ')
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** CPU seconds used so far by the main thread and by all other threads of `pid`. */
export function cpuSnapshot(pid) {
  let tids = []
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {}
  const main = ticks(`/proc/${pid}/task/${pid}/stat`) / TICKS_PER_SECOND
  const all = tids.reduce((sum, tid) => sum + ticks(`/proc/${pid}/task/${tid}/stat`), 0) / TICKS_PER_SECOND
  return { main, threads: all - main }
}

/** CPU used between two snapshots, in percent of one core over `elapsedSeconds`. */
export function cpuShare(before, after, elapsedSeconds) {
  return {
    mainThreadCpu: `${Math.round((100 * (after.main - before.main)) / elapsedSeconds)}%`,
    otherThreadsCpu: `${Math.round((100 * (after.threads - before.threads)) / elapsedSeconds)}%`,
  }
}
