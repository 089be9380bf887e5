// Reads a V8 .cpuprofile and says where the main thread's time went, by category. Each sample
// goes to the category of the innermost frame that has one (a JSON.parse called by the body
// parser counts as body parsing, a SQLite callback's Lucid code as the database), so the
// shares add up to 100 % of the window.
import { readFileSync } from 'node:fs'

/** Ordered: the first rule a frame matches names its category. */
const RULES = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['logging', (f) => /pino|sonic-boom|thread-stream|core\/logging\/|request_context_middleware/.test(f.url)],
  ['validation', (f) => /@vinejs|\/validators\//.test(f.url)],
  ['phone parsing', (f) => /libphonenumber|core\/phone_numbers\//.test(f.url)],
  ['SQLite driver, knex, Lucid', (f) => /node_modules\/(sqlite3|knex|@adonisjs\/lucid)\//.test(f.url)],
  ['serialisation', (f) => /serializ|fast-json-stringify/i.test(f.url) || /^(stringify|serialize|toJSON)$/.test(f.functionName)],
  ['body parsing', (f) => /@adonisjs\/bodyparser|body_guard|raw-body|co-body|inflation/.test(f.url) || (f.url === '' && f.functionName === 'parse')],
  ['container (@adonisjs/fold)', (f) => /@adonisjs\/fold/.test(f.url)],
  ['auth, session, CSRF', (f) => /@adonisjs\/(auth|session|shield)|modules\/auth\//.test(f.url)],
  ['framework (router, middleware, context)', (f) => /@adonisjs\/|@poppinss\/|@boringnode\//.test(f.url)],
  ['Node HTTP and sockets', (f) => /^node:(_http|http|net|stream|internal\/(streams|http|net|stream_base))/.test(f.url)],
  ['gateway code', (f) => /\/build\/(app|start|config|providers)\//.test(f.url)],
  ['other JavaScript', (f) => f.url !== ''],
]

function categoryOf(frame) {
  for (const [name, test] of RULES) if (test(frame)) return name
  return null
}

/**
 * `window`: [from, to] in the profile's own microsecond clock (process.hrtime's, on Linux), so
 * start-up and shut-down are left out. Answers [{ category, share }] largest first, `idle`
 * excluded from the shares and given on its own.
 */
export function profileBreakdown(file, window) {
  const profile = JSON.parse(readFileSync(file, 'utf8'))
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const memo = new Map()
  const categoryOfNode = (id) => {
    if (memo.has(id)) return memo.get(id)
    const node = nodes.get(id)
    let category = categoryOf(node.callFrame)
    if (!category) category = parent.has(id) ? categoryOfNode(parent.get(id)) : '(program)'
    memo.set(id, category)
    return category
  }

  const time = new Map()
  const frames = new Map()
  let at = profile.startTime
  for (let index = 0; index < profile.samples.length; index++) {
    const delta = profile.timeDeltas[index] ?? 0
    at += delta
    if (window && (at < window[0] || at > window[1])) continue
    const category = categoryOfNode(profile.samples[index])
    time.set(category, (time.get(category) ?? 0) + delta)
    const { functionName, url, lineNumber } = nodes.get(profile.samples[index]).callFrame
    const frame = `${category} | ${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/build\//, '')}:${lineNumber + 1}`
    frames.set(frame, (frames.get(frame) ?? 0) + delta)
  }
  const idle = time.get('idle') ?? 0
  time.delete('idle')
  const busy = [...time.values()].reduce((sum, value) => sum + value, 0)
  const total = busy + idle
  return {
    busyShare: total ? busy / total : 0,
    busyMs: busy / 1000,
    categories: [...time]
      .map(([category, micros]) => ({ category, share: micros / busy, ms: micros / 1000 }))
      .sort((a, b) => b.share - a.share),
    /** The innermost frames that took the most time, for finding what a category is made of. */
    topFrames: [...frames]
      .filter(([frame]) => !frame.startsWith('idle'))
      .map(([frame, micros]) => ({ frame, ms: micros / 1000 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 40),
  }
}
