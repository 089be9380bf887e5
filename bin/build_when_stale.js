#!/usr/bin/env node
/*
 * Builds the gateway (dashboard into public/, then `node ace build` into build/) only when the
 * build is missing or was made from other sources than the ones here now:
 *   node bin/build_when_stale.js            `npm start`: build if stale, else nothing
 *   node bin/build_when_stale.js --always   `npm run build` (and `gateway update`): build
 *
 * A successful build leaves build/.build-stamp.json with a digest of its sources (every file's
 * path and content, see sourceFiles). The build is fresh when that stamp exists, its digest is
 * the digest of the sources now, and the build's entry points are there. Contents, not times:
 * a `git checkout` of older files, a copy that keeps times or a clock set back is caught too.
 * The stamp is removed before a build starts and written only once every step succeeded, so a
 * failed or interrupted build never passes for fresh.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

export const STAMP = join('build', '.build-stamp.json')

/** What a start needs from the build (the compiled server and the dashboard it serves). */
export const OUTPUTS = [join('build', 'bin', 'server.js'), join('build', 'public', 'index.html')]

/** Folders the compiler skips (tsconfig.json "exclude") or that hold no source. */
const NOT_SOURCE_FOLDERS = new Set(['node_modules', 'build', 'data', 'tmp', 'bench', 'dashboard', 'public', 'coverage'])

/** What the TypeScript compiler reads under the root (its default include, "**"). */
const TYPESCRIPT = /\.(ts|tsx|mts|cts)$/

/**
 * Files the build writes into the sources itself (dashboard/scripts/generate_api.mjs): the ones
 * dashboard/.gitignore names, so the list of generated files is kept in one place.
 */
const GENERATED = generatedFiles()

function generatedFiles() {
  const ignore = join(fileURLToPath(new URL('..', import.meta.url)), 'dashboard', '.gitignore')
  if (!existsSync(ignore)) return new Set()
  return new Set(
    readFileSync(ignore, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && !line.includes('*') && !line.endsWith('/'))
      .map((line) => `dashboard/${line.replace(/^\//, '')}`)
  )
}

/**
 * Every file the build reads, as paths relative to root with '/', sorted:
 * - the TypeScript the compiler takes (app/, config/, start/, providers/, database/, commands/,
 *   bin/*.ts, tests/, agent/, adonisrc.ts...: every .ts outside the folders it excludes);
 * - the whole dashboard folder (sources, index.html, Vite config, the script typing its API)
 *   but the two files that script generates from the server's routes;
 * - package.json, package-lock.json, node_modules/.package-lock.json (what npm installed),
 *   tsconfig*.json, and this script (the build's own steps).
 */
export function sourceFiles(root) {
  const files = []
  const walk = (folder, keep, skipFolder) => {
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.') || skipFolder(path)) continue
        walk(path, keep, skipFolder)
      } else if (entry.isFile() && keep(entry.name)) {
        files.push(relative(root, path).split(sep).join('/'))
      }
    }
  }
  walk(root, (name) => TYPESCRIPT.test(name), (path) => relative(root, path).split(sep).length === 1 && NOT_SOURCE_FOLDERS.has(relative(root, path)))
  walk(join(root, 'dashboard'), () => true, (path) => ['node_modules', 'dist'].includes(relative(join(root, 'dashboard'), path)))
  for (const name of readdirSync(root)) if (/^tsconfig.*\.json$/.test(name)) files.push(name)
  for (const name of ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'bin/build_when_stale.js']) {
    if (existsSync(join(root, name))) files.push(name)
  }
  return [...new Set(files)].filter((file) => !GENERATED.has(file)).sort()
}

/** One digest of every source file's path and content. */
export function sourcesDigest(root) {
  const digest = createHash('sha256')
  for (const file of sourceFiles(root)) {
    digest.update(file).update('\0').update(createHash('sha256').update(readFileSync(join(root, file))).digest()).update('\n')
  }
  return digest.digest('hex')
}

/** Whether the build in root is fresh, and if not why (one line). */
export function buildState(root) {
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)))
  if (missing) return { fresh: false, reason: `${missing} is missing` }
  let stamp
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'))
  } catch {
    return { fresh: false, reason: `${STAMP} is missing (no complete build recorded)` }
  }
  if (stamp?.sources !== sourcesDigest(root)) return { fresh: false, reason: 'the sources changed since the last build' }
  return { fresh: true, reason: 'the build is up to date' }
}

/** Stamps root's build as made from `digest` (the sources' digest taken before it started). */
export function writeStamp(root, digest) {
  writeFileSync(join(root, STAMP), `${JSON.stringify({ sources: digest, builtAt: new Date().toISOString() })}\n`)
}

/**
 * Runs the build's steps in root; true when all succeeded (and the stamp is written). The
 * digest is taken before: a source changed while it builds leaves the build stale.
 */
export function build(root, steps = defaultSteps()) {
  const digest = sourcesDigest(root)
  rmSync(join(root, STAMP), { force: true })
  for (const [program, args, filterOutput] of steps) {
    const result = spawnSync(program, args, { cwd: root, stdio: filterOutput ? ['inherit', 'pipe', 'inherit'] : 'inherit' })
    if (filterOutput && result.stdout) process.stdout.write(filterOutput(result.stdout.toString()))
    if (result.error || result.status !== 0) {
      console.error(`build failed: ${[program, ...args].join(' ')} ${result.error ? `(${result.error.message})` : `exited with ${result.status ?? result.signal}`}`)
      return false
    }
  }
  const missing = OUTPUTS.find((output) => !existsSync(join(root, output)))
  if (missing) {
    console.error(`build failed: ${missing} was not made`)
    return false
  }
  writeStamp(root, digest)
  return true
}

/** The dashboard (`npm run build:dashboard`: API types, then Vite), then the server (`node ace build`). */
function defaultSteps() {
  // Under npm, its own CLI (npm_execpath); else the npm on the PATH.
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []]
  return [
    [npm[0], [...npm[1], 'run', 'build:dashboard']],
    [process.execPath, ['ace', 'build'], withoutDeployInstructions],
  ]
}

/**
 * `node ace build` ends with a box telling to `cd build`, `npm ci --omit="dev"` and run
 * `node bin/server.js` there: the framework's way to deploy, not this gateway's, which runs from
 * its own folder (`npm start`, `gateway start`) with its data folder beside it. Followed, it would
 * start a second gateway on a new, empty data folder; the box is left out.
 */
export function withoutDeployInstructions(output) {
  const lines = output.split('\n')
  const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, '')
  const heading = lines.findIndex((line) => plain(line).includes('Run the following commands to start the server in production'))
  if (heading === -1) return output
  let start = heading
  while (start > 0 && !plain(lines[start]).trimStart().startsWith('╭')) start--
  let end = heading
  while (end < lines.length - 1 && !plain(lines[end]).trimStart().startsWith('╰')) end++
  lines.splice(start, end - start + 1)
  return lines.join('\n')
}

/** Whether this file is the program run (`node bin/build_when_stale.js`), not an import. */
function isMain() {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isMain()) {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const always = process.argv.includes('--always')
  const state = always ? { fresh: false, reason: 'a build was asked for' } : buildState(root)
  if (state.fresh) {
    console.log(`build: ${state.reason}, not rebuilt`)
  } else {
    console.log(`build: ${state.reason}; building`)
    if (!build(root)) process.exit(1)
  }
}
