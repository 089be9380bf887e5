import vine from '@vinejs/vine'
import type { SchemaTypes } from '@vinejs/vine/types'
import { DateTime } from 'luxon'
import { isKnownCallingCode } from '#core/phone_numbers/phone_numbers'
import { documentedAs } from '#core/contract/schemas'
import type { JsonSchema } from '#core/contract/route_contract'

/**
 * The settings sections, each a JSON row of fields with defaults. Core declares the platform's
 * own sections and fields below; a module adds a section of its own (`backup`) or fields to an
 * existing one (devices adds routing to `sending`) with `settingsCatalogue.addFields` from its
 * provider's `register()`, and declares their types by merging into these interfaces:
 *
 *   const routingDefaults = { routingMode: 'round_robin' as RoutingMode, ... }
 *   type RoutingSettings = typeof routingDefaults
 *   declare module '#core/settings/settings_catalogue' {
 *     interface SendingSettings extends RoutingSettings {}
 *   }
 */
export interface GeneralSettings {
  gatewayName: string
}

export interface SendingSettings {
  /**
   * The platform time zone: daily backup time (docs/operations.md, The schedule), midnight quota
   * reset (docs/sending.md, How a message leaves).
   */
  timezone: string
}

export interface ReceptionSettings {
  /** Completes a local dialled number to E.164 (`0612345678` with `+33`). null: E.164 only. */
  localPrefix: string | null
}

export interface NotificationSettings {
  adminPhones: string[]
  adminEmails: string[]
  /** The SMTP server alerts are e-mailed through; null: no e-mail channel. */
  smtpHost: string | null
  smtpPort: number
  /** starttls (upgrade on 587), tls (implicit, 465) or none (a trusted local relay). */
  smtpSecurity: 'starttls' | 'tls' | 'none'
  smtpUsername: string | null
  /** Write-only: stored sealed with the master key, answered as ******** when set. */
  smtpPassword: string | null
  smtpFrom: string | null
}

export interface SettingsSections {
  general: GeneralSettings
  sending: SendingSettings
  reception: ReceptionSettings
  notifications: NotificationSettings
}

export type SettingsSectionName = keyof SettingsSections & string
export type Settings = SettingsSections

/** Some fields of one section, as a module contributes them. */
export interface SettingsFields<Fields> {
  defaults: Fields
  /** The VineJS schema of a change of each field (optional: an omitted field is left unchanged). */
  change: { [Name in keyof Fields]: SchemaTypes }
  /** Fields kept sealed with the master key and never answered in clear. */
  secret?: Array<keyof Fields & string>
  /**
   * The section answers 422 on a value of the right type that a rule refuses (out of range, not in
   * the enum, not matching its pattern) instead of 400, as the backup block does
   * (docs/api-conventions.md, Settings changes). A value of another type, `null` where not
   * nullable, or a field it does not name is 400 in any section.
   */
  outOfRangeIs422?: boolean
}

interface SectionEntry {
  defaults: Record<string, unknown>
  change: Record<string, SchemaTypes>
  secret: string[]
  outOfRangeIs422: boolean
}

/** Answered in place of a secret field's value when it is set; sent back, it keeps the value. */
export const SECRET_MASK = '********'

/**
 * Every settings section of the running gateway. Like the error kinds, a module-level
 * catalogue filled by the providers' `register()`; the validators are compiled on first use,
 * once every module has added its fields.
 */
class SettingsCatalogue {
  readonly #sections = new Map<string, SectionEntry>()
  #compiled: {
    change: ReturnType<typeof compileChange>
    sections: Map<string, ReturnType<typeof vine.compile>>
    schemas: Map<string, JsonSchema>
  } | null = null

  addFields<Name extends SettingsSectionName>(section: Name, fields: SettingsFields<Partial<SettingsSections[Name]>>): void
  addFields(section: string, fields: SettingsFields<Record<string, unknown>>): void {
    const entry = this.#sections.get(section) ?? { defaults: {}, change: {}, secret: [], outOfRangeIs422: false }
    for (const name of Object.keys(fields.defaults)) {
      if (name in entry.defaults) throw new Error(`Setting ${section}.${name} is defined twice`)
      if (!(name in fields.change)) throw new Error(`Setting ${section}.${name} has no change schema`)
    }
    Object.assign(entry.defaults, fields.defaults)
    Object.assign(entry.change, fields.change)
    entry.secret.push(...(fields.secret ?? []))
    entry.outOfRangeIs422 ||= fields.outOfRangeIs422 ?? false
    this.#sections.set(section, entry)
    this.#compiled = null
  }

  get sectionNames(): SettingsSectionName[] {
    return [...this.#sections.keys()] as SettingsSectionName[]
  }

  has(section: string): section is SettingsSectionName {
    return this.#sections.has(section)
  }

  /** A copy of a section's defaults. */
  defaults<Name extends SettingsSectionName>(section: Name): SettingsSections[Name] {
    return structuredClone(this.#entry(section).defaults) as unknown as SettingsSections[Name]
  }

  fieldNames(section: SettingsSectionName): string[] {
    return Object.keys(this.#entry(section).defaults)
  }

  secretFields(section: SettingsSectionName): string[] {
    return this.#entry(section).secret
  }

  outOfRangeIs422(section: SettingsSectionName): boolean {
    return this.#entry(section).outOfRangeIs422
  }

  /** PATCH /settings body: any subset of sections, each a partial change. */
  get changeValidator() {
    return this.#compile().change
  }

  /** The JSON schema of one section's change, as the OpenAPI document states it. */
  sectionSchema(section: SettingsSectionName): JsonSchema {
    return this.#compile().schemas.get(section)!
  }

  /** The validator of one section's partial change. */
  sectionValidator(section: SettingsSectionName) {
    return this.#compile().sections.get(section)!
  }

  #entry(section: string): SectionEntry {
    const entry = this.#sections.get(section)
    if (!entry) throw new Error(`Unknown settings section ${section}`)
    return entry
  }

  #compile() {
    if (this.#compiled) return this.#compiled
    const objects = new Map([...this.#sections].map(([name, entry]) => [name, sectionObject(entry)]))
    const change = compileChange(objects)
    const properties = (change.toJSONSchema() as JsonSchema).properties as Record<string, JsonSchema>
    this.#compiled = {
      change,
      sections: new Map([...objects].map(([name, object]) => [name, vine.compile(object)])),
      schemas: new Map([...objects.keys()].map((name) => [name, properties[name]])),
    }
    return this.#compiled
  }
}

function sectionObject(entry: SectionEntry) {
  return vine.object(Object.fromEntries(Object.entries(entry.change).map(([name, schema]) => [name, (schema as any).optional()])))
}

function compileChange(objects: Map<string, ReturnType<typeof sectionObject>>) {
  return vine.compile(vine.object(Object.fromEntries([...objects].map(([name, object]) => [name, object.optional()]))))
}

export const settingsCatalogue = new SettingsCatalogue()

const timeZone = vine.createRule((value, _options, field) => {
  if (typeof value !== 'string' || !DateTime.local().setZone(value).isValid) {
    field.report('The {{ field }} field must be an IANA time zone such as Europe/Paris or UTC', 'timezone', field)
  }
})

const callingCode = vine.createRule((value, _options, field) => {
  if (typeof value === 'string' && !isKnownCallingCode(value)) {
    field.report('The {{ field }} field must be a country calling code such as +33', 'callingCode', field)
  }
})

const e164 = vine.string().regex(/^\+[1-9]\d{6,14}$/)

// The platform's own fields: its name, its time zone, the local number prefix and the channels
// administrator alerts go out on (a module adds the switch of each alert it raises).
settingsCatalogue.addFields('general', {
  defaults: { gatewayName: 'SMS gateway' },
  change: { gatewayName: vine.string().trim().minLength(1).maxLength(80) },
})
settingsCatalogue.addFields('sending', {
  defaults: { timezone: 'UTC' },
  change: {
    timezone: vine
      .string()
      .trim()
      .use(timeZone())
      .use(documentedAs({ description: 'IANA time zone name', examples: ['Europe/Paris'] })),
  },
})
settingsCatalogue.addFields('reception', {
  defaults: { localPrefix: null },
  change: {
    localPrefix: vine
      .string()
      .trim()
      .use(callingCode())
      .use(documentedAs({ pattern: '^\\+\\d{1,3}$', examples: ['+33'] }))
      .nullable(),
  },
})
settingsCatalogue.addFields('notifications', {
  defaults: {
    adminPhones: [],
    adminEmails: [],
    smtpHost: null,
    smtpPort: 587,
    smtpSecurity: 'starttls',
    smtpUsername: null,
    smtpPassword: null,
    smtpFrom: null,
  },
  change: {
    adminPhones: vine.array(e164).maxLength(10).distinct(),
    adminEmails: vine.array(vine.string().email()).maxLength(10).distinct(),
    smtpHost: vine.string().trim().minLength(1).maxLength(253).regex(/^[A-Za-z0-9.:[\]-]+$/).nullable(),
    smtpPort: vine.number({ strict: true }).withoutDecimals().range([1, 65535]),
    smtpSecurity: vine.enum(['starttls', 'tls', 'none'] as const),
    smtpUsername: vine.string().maxLength(254).nullable(),
    smtpPassword: vine
      .string()
      .maxLength(500)
      .use(documentedAs({ description: 'Write-only. Answered as ******** when set; sending ******** back keeps it; null or empty clears it' }))
      .nullable(),
    smtpFrom: vine.string().trim().email().maxLength(254).nullable(),
  },
  secret: ['smtpPassword'],
})
