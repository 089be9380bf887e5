import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { GatewayProcess } from '#core/service/gateway_process'

/** Where an installation that is not a git checkout learns how to update. */
export const OTHER_INSTALLATIONS = 'docs/operations.md, "Updating"'

/** Nothing was changed: the installation and the running gateway are as they were. */
export class UpdateRefused extends Error {}

/** The update was tried and undone (or could not be undone: the message says what to do). */
export class UpdateFailed extends Error {}

export type UpdateOutcome = { updated: false; commit: string } | { updated: true; from: string; to: string; pid: number }

export interface InstallationUpdateOptions {
  /** The installation folder: a git checkout of the gateway, with its package.json. */
  root: string
  /** The background gateway of this installation, restarted on the new version. */
  service: GatewayProcess
  log: (line: string) => void
}

interface StepResult {
  ok: boolean
  output: string
}

/**
 * `gateway update` for an installation that is a git checkout: the current branch is
 * fast-forwarded to what its upstream has now, dependencies are installed from the lockfile, the
 * gateway is built and restarted; a new version that does not answer /health is undone (previous
 * commit, its dependencies and its build, kept aside until then) and the previous one started.
 *
 * Code comes only from the remote the operator cloned from, never from a package name anyone
 * could publish. A checkout with local changes or a branch that has diverged is refused before
 * anything is touched.
 */
export class InstallationUpdate {
  readonly #root: string
  readonly #previousBuild: string

  constructor(private options: InstallationUpdateOptions) {
    this.#root = options.root
    this.#previousBuild = join(options.root, 'tmp', 'previous-build')
  }

  async run(): Promise<UpdateOutcome> {
    this.#assertCheckout()
    const branch = this.#git(['symbolic-ref', '--quiet', '--short', 'HEAD'])
    if (!branch.ok) throw new UpdateRefused('HEAD is not on a branch (detached): check out the branch this installation follows, then update')
    const branchName = branch.output.trim()
    const upstream = this.#git(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}'])
    if (!upstream.ok) {
      throw new UpdateRefused(`the branch ${branchName} follows no upstream: set one with git branch --set-upstream-to=<remote>/<branch>`)
    }
    const changes = this.#git(['status', '--porcelain', '--untracked-files=no'])
    if (!changes.ok) throw new UpdateRefused(`git status failed: ${firstLine(changes.output)}`)
    if (changes.output.trim()) {
      const count = changes.output.trim().split('\n').length
      throw new UpdateRefused(`${count} tracked file(s) have local changes: commit or stash them (git status), then update; nothing was changed`)
    }
    if (existsSync(this.#previousBuild)) {
      throw new UpdateRefused(`an earlier update did not finish: ${this.#previousBuild} holds the build from before it (see ${OTHER_INSTALLATIONS}); nothing was changed`)
    }

    const fetched = this.#git(['fetch', '--quiet'])
    if (!fetched.ok) throw new UpdateRefused(`git fetch failed: ${firstLine(fetched.output)}`)
    const previous = this.#revision('HEAD')
    const target = this.#revision('@{upstream}')
    if (previous === target || this.#isAncestor(target, previous)) {
      this.options.log(`already up to date with ${upstream.output.trim()} (${short(previous)})`)
      return { updated: false, commit: previous }
    }
    if (!this.#isAncestor(previous, target)) {
      throw new UpdateRefused(
        `${branchName} and ${upstream.output.trim()} have diverged: a fast-forward is impossible; bring the branch back to its upstream yourself, then update; nothing was changed`
      )
    }

    this.options.log(`updating ${branchName} from ${short(previous)} to ${short(target)} (${upstream.output.trim()})`)
    const wasRunning = await this.options.service.stop()
    if (wasRunning) this.options.log('gateway stopped')
    try {
      this.#mustSucceed('git merge', this.#git(['merge', '--ff-only', '--quiet', target]))
      this.#installDependencies()
      this.#setPreviousBuildAside()
      this.options.log('building')
      this.#mustSucceed('the build', this.#npm(['run', 'build']))
      const pid = await this.options.service.start()
      rmSync(this.#previousBuild, { recursive: true, force: true })
      this.options.log(`updated to ${short(target)}; gateway started (pid ${pid})`)
      return { updated: true, from: previous, to: target, pid }
    } catch (error) {
      throw await this.#rollBack(previous, target, wasRunning, error as Error)
    }
  }

  /** Back to the commit, dependencies and build that ran before; started again if it ran. */
  async #rollBack(previous: string, target: string, wasRunning: boolean, cause: Error): Promise<UpdateFailed> {
    const reason = `the update to ${short(target)} failed (${cause.message})`
    this.options.log(`${reason}; going back to ${short(previous)}`)
    try {
      // A new version that started without answering is still running.
      await this.options.service.stop()
      this.#mustSucceed('git reset', this.#git(['reset', '--hard', '--quiet', previous]))
      this.#installDependencies()
      if (existsSync(this.#previousBuild)) {
        rmSync(join(this.#root, 'build'), { recursive: true, force: true })
        renameSync(this.#previousBuild, join(this.#root, 'build'))
      }
      if (!wasRunning) return new UpdateFailed(`${reason}; back on ${short(previous)} (the gateway was not running and was left stopped)`)
      const pid = await this.options.service.start()
      return new UpdateFailed(`${reason}; back on ${short(previous)}, gateway started (pid ${pid})`)
    } catch (rollBackError) {
      return new UpdateFailed(
        `${reason}, and going back to ${short(previous)} failed too (${(rollBackError as Error).message}): ` +
          `check out ${previous} (git reset --hard ${previous}), run npm install and npm run build, then gateway start`
      )
    }
  }

  #assertCheckout() {
    const refused = `this installation is not a git checkout, so gateway update cannot update it: see ${OTHER_INSTALLATIONS}`
    const toplevel = this.#git(['rev-parse', '--show-toplevel'])
    if (!toplevel.ok) {
      if (/not a git repository/i.test(toplevel.output)) throw new UpdateRefused(refused)
      if (toplevel.output === 'git: ENOENT') throw new UpdateRefused(`git is not installed: install it, or see ${OTHER_INSTALLATIONS}`)
      // Anything else git says (a checkout owned by another user, say) is worth reading as it is.
      throw new UpdateRefused(`git could not read this installation (${firstLine(toplevel.output)}): see ${OTHER_INSTALLATIONS}`)
    }
    // The installation inside some other repository (a folder copied into a project) is not a checkout of the gateway.
    if (realpathSync(toplevel.output.trim()) !== realpathSync(this.#root)) throw new UpdateRefused(refused)
  }

  #installDependencies() {
    this.options.log('installing dependencies (npm install)')
    // --no-save: the lockfile is the checkout's, not npm's to rewrite (a rewrite would count as a
    // local change at the next update); --include=dev: the build needs the compiler.
    this.#mustSucceed('npm install', this.#npm(['install', '--no-save', '--include=dev', '--no-audit', '--no-fund']))
  }

  #setPreviousBuildAside() {
    const build = join(this.#root, 'build')
    if (!existsSync(build)) return
    mkdirSync(join(this.#root, 'tmp'), { recursive: true })
    renameSync(build, this.#previousBuild)
  }

  #mustSucceed(step: string, result: StepResult) {
    if (result.ok) return
    const tail = result.output.trim().split('\n').slice(-15)
    for (const line of tail) this.options.log(`  ${line}`)
    throw new Error(`${step} failed`)
  }

  #revision(name: string): string {
    const result = this.#git(['rev-parse', '--verify', '--quiet', `${name}^{commit}`])
    if (!result.ok) throw new UpdateRefused(`git cannot read ${name}: ${firstLine(result.output)}`)
    return result.output.trim()
  }

  #isAncestor(ancestor: string, descendant: string): boolean {
    return this.#git(['merge-base', '--is-ancestor', ancestor, descendant]).ok
  }

  #git(args: string[]): StepResult {
    const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }
    // The installation folder decides which repository this is, not the caller's environment.
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_CEILING_DIRECTORIES']) delete env[name]
    return this.#run('git', args, env)
  }

  #npm(args: string[]): StepResult {
    const env: NodeJS.ProcessEnv = { ...process.env }
    // NODE_ENV=production would make npm leave out the build tools.
    delete env.NODE_ENV
    return this.#run('npm', args, env)
  }

  #run(program: string, args: string[], env: NodeJS.ProcessEnv): StepResult {
    const result = spawnSync(program, args, { cwd: this.#root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    if (result.error) return { ok: false, output: `${program}: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}` }
    return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` }
  }
}

const short = (commit: string) => commit.slice(0, 12)
const firstLine = (text: string) => text.trim().split('\n')[0] || 'no output'
