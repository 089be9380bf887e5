import string from '@adonisjs/core/helpers/string'
import { LimiterResponse, errors } from '@adonisjs/limiter'
import type { LimiterConsumptionOptions, LimiterStoreContract } from '@adonisjs/limiter/types'

interface Entry {
  consumed: number
  /** On the gateway's clock (ms). */
  expiresAt: number
}

export interface ClockedMemoryStoreOptions {
  /** Now on the gateway's clock, in ms (the container's Clock, which tests point at a ManualClock). */
  now: () => number | Promise<number>
  /** Most keys kept; past it, expired keys are swept, then the least recently written go. */
  maxKeys: number
}

/**
 * The in-memory store behind the gateway's @adonisjs/limiter limiters (config/limiter.ts).
 *
 * The library's own memory store (rate-limiter-flexible's RateLimiterMemory) reads Date.now()
 * and forgets keys on setTimeout timers, so tests could only move its time by sleeping, and it
 * has no ceiling: many addresses within one window each keep an entry. This store keeps the
 * same contract and the same counting rules (a fixed window opened by a key's first request,
 * a block that outlasts the window) with time from the gateway's Clock, and holds at most
 * `maxKeys` keys: under a flood of distinct addresses the oldest records go first, which costs
 * a guesser nothing they could not get by changing address anyway.
 */
export class ClockedMemoryStore implements LimiterStoreContract {
  readonly name = 'memory'
  readonly requests: number
  readonly duration: number
  readonly blockDuration: number
  readonly #entries = new Map<string, Entry>()
  readonly #options: ClockedMemoryStoreOptions

  constructor(consumption: LimiterConsumptionOptions, options: ClockedMemoryStoreOptions) {
    this.requests = consumption.requests
    this.duration = seconds(consumption.duration)
    this.blockDuration = consumption.blockDuration ? seconds(consumption.blockDuration) : 0
    this.#options = options
  }

  /** Keys held right now, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size
  }

  async consume(key: string | number): Promise<LimiterResponse> {
    const now = await this.#options.now()
    const entry = this.#add(String(key), 1, now)
    // Blocked once, on the first request over the limit (as the library's stores do).
    if (entry.consumed === this.requests + 1 && this.blockDuration > 0) entry.expiresAt = now + this.blockDuration * 1000
    const response = this.#response(entry, now)
    if (entry.consumed > this.requests) throw new errors.E_TOO_MANY_REQUESTS(response)
    return response
  }

  async increment(key: string | number): Promise<LimiterResponse> {
    const now = await this.#options.now()
    return this.#response(this.#add(String(key), 1, now), now)
  }

  async decrement(key: string | number): Promise<LimiterResponse> {
    const now = await this.#options.now()
    const entry = this.#live(String(key), now)
    if (!entry) return this.#response(this.#write(String(key), { consumed: 0, expiresAt: now + this.duration * 1000 }, now), now)
    if (entry.consumed > 0) entry.consumed--
    return this.#response(entry, now)
  }

  async block(key: string | number, duration: string | number): Promise<LimiterResponse> {
    const now = await this.#options.now()
    const entry = this.#write(String(key), { consumed: this.requests + 1, expiresAt: now + seconds(duration) * 1000 }, now)
    return this.#response(entry, now)
  }

  async set(key: string | number, requests: number, duration?: string | number): Promise<LimiterResponse> {
    const now = await this.#options.now()
    const entry = this.#write(String(key), { consumed: requests, expiresAt: now + seconds(duration ?? this.duration) * 1000 }, now)
    return this.#response(entry, now)
  }

  async delete(key: string | number): Promise<boolean> {
    return this.#entries.delete(String(key))
  }

  deleteInMemoryBlockedKeys(): void {}

  async clear(): Promise<void> {
    this.#entries.clear()
  }

  async get(key: string | number): Promise<LimiterResponse | null> {
    const now = await this.#options.now()
    const entry = this.#live(String(key), now)
    return entry ? this.#response(entry, now) : null
  }

  #live(key: string, now: number): Entry | null {
    const entry = this.#entries.get(key)
    if (!entry) return null
    if (entry.expiresAt <= now) {
      this.#entries.delete(key)
      return null
    }
    return entry
  }

  #add(key: string, amount: number, now: number): Entry {
    const entry = this.#live(key, now)
    if (entry) {
      entry.consumed += amount
      return entry
    }
    return this.#write(key, { consumed: amount, expiresAt: now + this.duration * 1000 }, now)
  }

  #write(key: string, entry: Entry, now: number): Entry {
    // Re-inserted, so that the Map's order is the order of last writes.
    this.#entries.delete(key)
    if (this.#entries.size >= this.#options.maxKeys) this.#makeRoom(now)
    this.#entries.set(key, entry)
    return entry
  }

  #makeRoom(now: number) {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key)
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#options.maxKeys) break
      this.#entries.delete(key)
    }
  }

  #response(entry: Entry, now: number): LimiterResponse {
    return new LimiterResponse({
      limit: this.requests,
      remaining: Math.max(0, this.requests - entry.consumed),
      consumed: entry.consumed,
      availableIn: Math.max(0, Math.ceil((entry.expiresAt - now) / 1000)),
    })
  }
}

function seconds(duration: string | number): number {
  return string.seconds.parse(duration)
}
