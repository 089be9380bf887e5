import { errors as vineErrors } from '@vinejs/vine'
import type { Database } from '@adonisjs/lucid/database'
import type { EmitterService } from '@adonisjs/core/types'
import type { Clock } from '#core/time/clock'
import { ApiError } from '#core/http/api_error'
import type { Secrets } from '#core/secrets/secrets'
import { typeErrorsOf } from '#core/settings/settings_types'
import { SECRET_MASK, settingsCatalogue, type Settings, type SettingsSectionName } from '#core/settings/settings_catalogue'
import { transaction } from '#core/database/transaction'
import type { JsonOf } from '#core/contract/typed_schema'

const TABLE = 'settings'

/** GET and PATCH /settings: every section, typed by the answer's schema (`answerSchema`). */
export type SettingsAnswer = JsonOf<ReturnType<typeof settingsCatalogue.answerSchema>>

export type FieldError = { field: string; rule: string; message: string }

/** What `get` answers: the section in force, frozen, so no caller can change it for the others. */
export type ReadonlyDeep<T> = T extends readonly (infer Item)[]
  ? ReadonlyArray<ReadonlyDeep<Item>>
  : T extends object
    ? { readonly [Key in keyof T]: ReadonlyDeep<T[Key]> }
    : T

/**
 * A module's own check of a validated section change, for what only the module can know (the
 * settings name its rows): answers errors with fields relative to the section.
 */
export type SectionCheck = (change: Record<string, unknown>) => Promise<FieldError[]>

/**
 * Typed settings sections with defaults, kept as one JSON row per section. Reads come from
 * memory (one process owns the database); a change is validated section by section, written
 * in one transaction, then announced with `settings:changed` so jobs re-plan without restart.
 */
export class SettingsStore {
  #cache: Settings | null = null
  /** When each section was last saved (its row's updated_at); a section never saved has none. */
  #savedAt = new Map<SettingsSectionName, string>()
  /** Changes run one at a time, each merged onto what the previous one left. */
  #changes: Promise<unknown> = Promise.resolve()
  readonly #checks = new Map<SettingsSectionName, SectionCheck[]>()

  constructor(
    private db: Database,
    private emitter: EmitterService,
    private clock: Clock,
    private secrets: Secrets
  ) {}

  /** Adds a module's check of a section (core cannot look into the module's tables). */
  addCheck(section: SettingsSectionName, check: SectionCheck) {
    this.#checks.set(section, [...(this.#checks.get(section) ?? []), check])
  }

  /** The settings as the API answers them: secret fields masked. */
  async publicView(): Promise<SettingsAnswer> {
    const settings = (await this.all()) as unknown as Record<string, Record<string, unknown>>
    for (const section of settingsCatalogue.sectionNames) {
      for (const field of settingsCatalogue.secretFields(section)) settings[section][field] = settings[section][field] ? SECRET_MASK : null
    }
    return settings as unknown as SettingsAnswer
  }

  /** A secret field in clear, for the service that uses it; null when unset or unreadable. */
  async revealSecret(section: SettingsSectionName, field: string): Promise<string | null> {
    const sealed = ((await this.get(section)) as Record<string, unknown>)[field]
    if (typeof sealed !== 'string' || !sealed) return null
    const revealed = this.secrets.reveal(sealed)
    return revealed.readable ? revealed.value : null
  }

  /**
   * When a section was last saved through `update`, or null while it was never saved and runs on
   * its defaults: a module can tell "an operator chose these values" from "nobody looked".
   */
  async savedAt(name: SettingsSectionName): Promise<string | null> {
    this.#cache ??= await this.#load()
    return this.#savedAt.get(name) ?? null
  }

  async all(): Promise<Settings> {
    this.#cache ??= await this.#load()
    return structuredClone(this.#cache)
  }

  /**
   * One section as it is in force, frozen rather than copied: sends and API-key calls read
   * settings on every request, and a copy per read was a measurable share of one.
   */
  async get<Name extends SettingsSectionName>(name: Name): Promise<ReadonlyDeep<Settings[Name]>> {
    this.#cache ??= await this.#load()
    return this.#cache[name] as ReadonlyDeep<Settings[Name]>
  }

  /** Applies a partial change and answers the settings in force. */
  update(change: unknown): Promise<Settings> {
    const run = this.#changes.then(
      () => this.#apply(change),
      () => this.#apply(change)
    )
    this.#changes = run
    return run
  }

  async #apply(change: unknown): Promise<Settings> {
    const validated = await this.#validate(change)
    const current = await this.all()
    const next = structuredClone(current) as unknown as Record<SettingsSectionName, Record<string, unknown>>
    const changed = Object.keys(validated) as SettingsSectionName[]
    const now = this.clock.now().toISOString()
    await transaction(async (trx) => {
      for (const name of changed) {
        next[name] = { ...next[name], ...this.#sealSecrets(name, validated[name] as Record<string, unknown>) }
        await trx
          .insertQuery()
          .table(TABLE)
          .insert({ section: name, value: JSON.stringify(next[name]), updated_at: now })
          .knexQuery.onConflict('section')
          .merge()
      }
    }, this.db)
    this.#cache = deepFreeze(next) as unknown as Settings
    for (const name of changed) this.#savedAt.set(name, now)
    if (changed.length) await this.emitter.emit('settings:changed', { sections: changed })
    return this.all()
  }

  /** Secret fields are stored sealed; the mask sent back keeps the stored value. */
  #sealSecrets(section: SettingsSectionName, change: Record<string, unknown>): Record<string, unknown> {
    const sealed = { ...change }
    for (const field of settingsCatalogue.secretFields(section)) {
      if (!(field in sealed)) continue
      const value = sealed[field]
      if (value === SECRET_MASK) delete sealed[field]
      else sealed[field] = typeof value === 'string' && value !== '' ? this.secrets.seal(value) : null
    }
    return sealed
  }

  /** Forgets the cached copy (after the database file itself was replaced). */
  invalidate() {
    this.#cache = null
  }

  async #load(): Promise<Settings> {
    const rows: Array<{ section: string; value: string; updated_at: string }> = await this.db.from(TABLE).select('section', 'value', 'updated_at')
    const stored = new Map(rows.map((row) => [row.section, row.value]))
    // A row always means a save, even one whose date no longer reads (a hand-edited database).
    this.#savedAt = new Map(rows.map((row) => [row.section as SettingsSectionName, isoOr(row.updated_at, new Date(0).toISOString())]))
    const settings = {} as Record<SettingsSectionName, Record<string, unknown>>
    for (const name of settingsCatalogue.sectionNames) {
      const defaults = settingsCatalogue.defaults(name) as unknown as Record<string, unknown>
      const raw = stored.get(name)
      let saved: Record<string, unknown> = {}
      try {
        saved = raw ? JSON.parse(raw) : {}
      } catch {
        saved = {}
      }
      // Only known fields survive: a field dropped from the code is not served back.
      settings[name] = Object.fromEntries(Object.keys(defaults).map((key) => [key, key in saved ? saved[key] : defaults[key]]))
    }
    return deepFreeze(settings) as unknown as Settings
  }

  /**
   * One rule for every section: a value of another type than the document states (`null` where
   * not nullable, `"7"` for a number, a block that is not an object, an unknown section or field)
   * is a malformed request, 400 VALIDATION_ERROR. A value of the right type that a rule refuses
   * (out of range, not in the enum, a bad HH:MM) is 422 in a section that says so (the backup
   * block), 400 elsewhere. A change with both kinds answers 400 with every error found.
   */
  async #validate(change: unknown): Promise<Partial<Record<SettingsSectionName, Record<string, unknown>>>> {
    if (!change || typeof change !== 'object' || Array.isArray(change)) {
      throw ApiError.validation('body', 'object', 'The body must be an object of settings sections')
    }
    const errors: FieldError[] = []
    let only422 = true
    const validated: Partial<Record<SettingsSectionName, Record<string, unknown>>> = {}
    for (const [name, value] of Object.entries(change)) {
      if (!settingsCatalogue.has(name)) {
        errors.push({ field: name, rule: 'section', message: `Unknown settings section; known: ${settingsCatalogue.sectionNames.join(', ')}` })
        only422 = false
        continue
      }
      const section = name as SettingsSectionName
      const typeErrors = typeErrorsOf(value, settingsCatalogue.sectionSchema(section), section)
      if (typeErrors.length) {
        errors.push(...typeErrors)
        only422 = false
        continue
      }
      const sectionErrors = await this.#validateSection(section, value as Record<string, unknown>, validated)
      if (sectionErrors.length && !settingsCatalogue.outOfRangeIs422(section)) only422 = false
      errors.push(...sectionErrors)
    }
    if (errors.length) {
      throw new ApiError(only422 ? 'SETTING_OUT_OF_RANGE' : 'VALIDATION_ERROR', errors[0].message, errors)
    }
    return validated
  }

  /** A section whose types are right: its rules, then the modules' checks. */
  async #validateSection(
    section: SettingsSectionName,
    value: Record<string, unknown>,
    validated: Partial<Record<SettingsSectionName, Record<string, unknown>>>
  ): Promise<FieldError[]> {
    try {
      const change = (await settingsCatalogue.sectionValidator(section).validate(value)) as Record<string, unknown>
      const refused: FieldError[] = []
      for (const check of this.#checks.get(section) ?? []) refused.push(...(await check(change)))
      if (refused.length) return refused.map((error) => ({ ...error, field: `${section}.${error.field}` }))
      validated[section] = change
      return []
    } catch (error) {
      if (!(error instanceof vineErrors.E_VALIDATION_ERROR)) throw error
      return (error.messages as FieldError[]).map(({ field, rule, message }) => ({
        field: `${section}.${field}`,
        rule,
        // VineJS names the leaf (`simSlot`); the whole path says which rule of a list it was.
        message: message.replace(/The (\S+) field/, () => `The ${section}.${field} field`),
      }))
    }
  }
}

function isoOr(text: string, fallback: string): string {
  const time = Date.parse(text)
  return Number.isNaN(time) ? fallback : new Date(time).toISOString()
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

declare module '@adonisjs/core/types' {
  interface EventsList {
    'settings:changed': { sections: SettingsSectionName[] }
  }
}
