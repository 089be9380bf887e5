import { Logger } from '@adonisjs/core/logger'
import { Emitter } from '@adonisjs/core/events'
import { Clock } from '#core/time/clock'
import { Secrets } from '#core/secrets/secrets'
import type { Caller } from '#core/http/access'
import { ActivityLog } from '#core/activity/activity_log'
import type { JobRunner } from '#core/jobs/job_runner'
import { ApiError } from '#core/http/api_error'
import { LICENSE_CHECK_JOB, licenseCheckJob } from '#modules/license/jobs/license_check_job'
import { nextCheckDelayMs, stateAfter } from '#modules/license/services/license_check_policy'
import { LicenseServerClient } from '#modules/license/services/license_server_client'
import { LicenseConfig } from '#modules/license/services/license_config'
import { LicenseStateStore, initialLicense, type StoredLicense } from '#modules/license/stores/license_state_store'
import { transitionOf } from '#modules/license/services/license_transitions'
import {
  keyPrefixOf,
  type LicenseKeyStatus,
  type LicenseMode,
  type LicenseState,
} from '#modules/license/services/license_state'
import type { LicenseStatus } from '#modules/license/schemas'

/** The Activity log's `source` for everything the license gate writes. */
export const LICENSE_SOURCE = 'license'

/**
 * The license gate. The state lives in memory, loaded once at start and changed only by this
 * service (always after the database has it), so the check on every write request costs a
 * comparison. The key is kept sealed with the master key in the database and revealed here,
 * never logged: events, logs and answers only ever show its first four characters.
 */
export class LicenseService {
  #stored: StoredLicense = { ...initialLicense }
  #key: string | null = null
  #keyStatus: LicenseKeyStatus = 'missing'
  /** Bumped on every key change, so an answer about the previous key is not applied. */
  #keyGeneration = 0
  #runner: JobRunner | null = null
  /** The tail of the row changes in progress; see #oneAtATime. */
  #changes: Promise<unknown> = Promise.resolve()

  constructor(
    private config: LicenseConfig,
    private store: LicenseStateStore,
    private client: LicenseServerClient,
    private secrets: Secrets,
    private clock: Clock,
    private emitter: Emitter<any>,
    private activity: ActivityLog,
    private logger: Logger
  ) {}

  get mode(): LicenseMode {
    return this.config.server ? 'licensed' : 'community'
  }

  get state(): LicenseState {
    return this.mode === 'community' ? 'valid' : this.#stored.state
  }

  /** Throws LICENSE_BLOCKED while the license is withdrawn. Synchronous: runs on every write. */
  assertWritable(): void {
    if (this.state === 'withdrawn') {
      throw new ApiError('LICENSE_BLOCKED', 'The license is withdrawn: reads and exports work, writes are refused')
    }
  }

  status(): LicenseStatus {
    return {
      mode: this.mode,
      state: this.state,
      keyPrefix: this.#stored.keyPrefix,
      keyStatus: this.#keyStatus,
      server: this.config.server ? displayedServer(this.config.server) : null,
      lastCheckedAt: this.#stored.lastCheckedAt,
      lastAnswerAt: this.#stored.lastAnswerAt,
    }
  }

  /**
   * Reads the persisted state and key. A key given in the environment replaces the stored one
   * (and repairs one sealed with another master key); says whether it did, so the caller can
   * have it checked at once.
   */
  async load(environmentKey?: string | null): Promise<{ keyReplaced: boolean }> {
    const stored = await this.store.read()
    let key: string | null = null
    let keyStatus: LicenseKeyStatus = 'missing'
    if (stored.keySealed) {
      const revealed = this.secrets.reveal(stored.keySealed)
      keyStatus = revealed.readable ? 'ok' : 'must_be_set_again'
      key = revealed.readable ? revealed.value : null
    }
    this.#stored = stored
    this.#key = key
    this.#keyStatus = keyStatus
    this.#keyGeneration++

    const given = environmentKey?.trim()
    if (given && given !== key) {
      await this.replaceKey(given, 'GATEWAY_LICENSE_KEY', null)
      return { keyReplaced: true }
    }
    if (keyStatus === 'must_be_set_again') {
      await this.activity.warning(
        LICENSE_SOURCE,
        'license.key_unreadable',
        'The stored license key was sealed with another master key (database restored without its secret.key): enter the license key again.',
        { keyPrefix: stored.keyPrefix }
      )
    }
    return { keyReplaced: false }
  }

  /**
   * Stores a new key sealed with the master key and asks for a check at once. The state is
   * kept: a withdrawn license stays withdrawn until the server says the new key is valid.
   * `by`: the caller who entered it, named by the Activity entry (null: the environment's key).
   */
  async replaceKey(key: string, enteredThrough: 'GATEWAY_LICENSE_KEY' | 'api', by: Caller | null): Promise<void> {
    const keyPrefix = keyPrefixOf(key)
    await this.#oneAtATime(async () => {
      const next: StoredLicense = { ...this.#stored, keySealed: this.secrets.seal(key), keyPrefix }
      await this.store.write(next, this.clock.now())
      this.#stored = next
      this.#key = key
      this.#keyStatus = 'ok'
      this.#keyGeneration++
    })
    await this.activity.actingFor(by).info(LICENSE_SOURCE, 'license.key_entered', `License key ${keyPrefix}… entered`, { keyPrefix, enteredThrough })
    this.requestCheck()
  }

  /** Registers the periodic check on the runner; community mode checks nothing, so registers nothing. */
  scheduleChecksOn(runner: JobRunner): void {
    this.#runner = runner
    if (this.mode === 'licensed') runner.register(licenseCheckJob(this))
  }

  /** Makes the check due now (a new key); nothing in community mode or before scheduling. */
  requestCheck(): void {
    if (this.#runner && this.mode === 'licensed') this.#runner.wake(LICENSE_CHECK_JOB)
  }

  /** One check: asks the server, applies the answer, says when to ask again (null: no key to ask about). */
  async check(): Promise<Date | null> {
    const server = this.config.server
    const key = this.#key
    if (!server || !key) return null
    const generation = this.#keyGeneration

    const verdict = await this.client.check(server, key, this.config.gatewayVersion)
    const now = this.clock.now()
    const applied = await this.#oneAtATime(async () => {
      // The key changed while the server was asked: that answer is about the old key.
      if (generation !== this.#keyGeneration) return null
      const from = this.#stored.state
      const next: StoredLicense = {
        ...this.#stored,
        state: stateAfter(from, verdict),
        lastCheckedAt: now.toISOString(),
        lastAnswerAt: verdict.answered ? now.toISOString() : this.#stored.lastAnswerAt,
      }
      await this.store.write(next, now)
      this.#stored = next
      return { from, to: next.state }
    })
    // The key change woke the job, so the next pass asks about the new key straight away.
    if (!applied) return now
    const { from, to } = applied

    const keyPrefix = keyPrefixOf(key)
    if (verdict.answered) {
      this.logger.debug({ license: keyPrefix, state: to }, 'license server answered')
    } else {
      this.logger.warn({ license: keyPrefix, state: to }, `license check: ${verdict.reason}`)
    }
    const transition = transitionOf(from, to, verdict)
    if (transition) {
      await this.activity.record({
        level: transition.level,
        source: LICENSE_SOURCE,
        kind: `license.${to}`,
        message: transition.message,
        details: { keyPrefix, from, to },
      })
      if (transition.event) await this.emitter.emit(transition.event, { id: keyPrefix, at: now })
    }
    return new Date(now.getTime() + nextCheckDelayMs(to, verdict))
  }

  /**
   * Runs row changes one after the other, each from the state the previous one left: a key
   * entered while a check is being written must not be overwritten by it, nor undo its state.
   */
  #oneAtATime<T>(change: () => Promise<T>): Promise<T> {
    const run = this.#changes.then(change, change)
    this.#changes = run.catch(() => {})
    return run
  }
}

/** The server as configured, less any user name or password written into the URL. */
function displayedServer(server: string): string {
  const url = new URL(server)
  if (!url.username && !url.password) return server
  url.username = ''
  url.password = ''
  return url.href
}
