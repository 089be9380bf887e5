import vine from '@vinejs/vine'
import type { Infer, SchemaTypes } from '@vinejs/vine/types'
import { DateTime } from 'luxon'
import { isKnownCallingCode } from '#core/phone_numbers/phone_numbers'
import { documentedAs } from '#core/contract/schemas'
import type { JsonSchema } from '#core/contract/route_contract'
import type { ValueSchema } from '#core/contract/typed_schema'

/**
 * The settings sections, each a JSON row of fields with defaults. Core registers the platform's
 * own sections and fields below; a module adds a section of its own (`backup`) or fields to an
 * existing one (devices adds routing to `sending`) with `sectionFields`, registered from its
 * provider's `register()`. Each field is defined once, by the VineJS schema of its change: it
 * checks a change, prints the field's schema in the OpenAPI document and types the field's value
 * (its `Infer`), which the default is checked against. The sections' type is derived from the
 * registrations themselves: whoever registers a list declares it here by name, and only a list
 * so declared can be registered (`registerVocabulary`):
 *
 *   export const campaignSettings = [sectionFields('sending', { defaults: {...}, change: {...} })]
 *   declare module '#core/settings/settings_catalogue' {
 *     interface RegisteredSettings {
 *       campaigns: typeof campaignSettings
 *     }
 *   }
 */
export interface RegisteredSettings {
  core: typeof coreSettings
}

/** The change schemas of some fields of a section, by field name. */
export type FieldChanges = Record<string, SchemaTypes>

/** The values of those fields, as the section holds and answers them: what each change lets in. */
export type FieldValues<Change extends FieldChanges> = { -readonly [Name in keyof Change]: Infer<Change[Name]> }

/** Some fields of one section, as core or a module registers them. */
export interface SectionFields<Name extends string = string, Change extends FieldChanges = FieldChanges> {
  section: Name
  fields: SettingsFields<Change>
}

export interface SettingsFields<Change extends FieldChanges> {
  defaults: FieldValues<Change>
  /** The VineJS schema of a change of each field (optional: an omitted field is left unchanged). */
  change: Change
  /** Fields kept sealed with the master key and never answered in clear. */
  secret?: Array<keyof Change & string>
  /**
   * The section answers 422 on a value of the right type that a rule refuses (out of range, not in
   * the enum, not matching its pattern) instead of 400, as the backup block does
   * (docs/api-conventions.md, Settings changes). A value of another type, `null` where not
   * nullable, or a field it does not name is 400 in any section.
   */
  outOfRangeIs422?: boolean
}

/** Fields of `section`, their defaults checked against what their change schemas let in. */
export function sectionFields<const Name extends string, Change extends FieldChanges>(
  section: Name,
  fields: { defaults: NoInfer<FieldValues<Change>>; change: Change; secret?: Array<NoInfer<keyof Change & string>>; outOfRangeIs422?: boolean }
): SectionFields<Name, Change> {
  return { section, fields }
}

/** One registration of any declared list. */
export type SettingsRegistration = RegisteredSettings[keyof RegisteredSettings][number]

export type SettingsSectionName = SettingsRegistration['section']

type ValuesOf<Registration> = Registration extends SectionFields<string, infer Change> ? FieldValues<Change> : never
type IntersectionOf<Union> = (Union extends unknown ? (value: Union) => void : never) extends (value: infer Both) => void ? Both : never
/** The fields every registration adds to one section, as one object type. */
type SectionValues<Name extends SettingsSectionName, All = IntersectionOf<ValuesOf<Extract<SettingsRegistration, { section: Name }>>>> = {
  [Field in keyof All]: All[Field]
}

/** Every section with its fields, as registered. */
export type SettingsSections = { [Name in SettingsSectionName]: SectionValues<Name> }
export type Settings = SettingsSections

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

  /** Adds registrations of fields; only a list declared in `RegisteredSettings` is typed here. */
  add(registrations: readonly SettingsRegistration[]): void {
    for (const { section, fields } of registrations) this.#addFields(section, fields as unknown as SettingsFields<FieldChanges>)
  }

  #addFields(section: string, fields: SettingsFields<FieldChanges>): void {
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

  /**
   * The answer of GET and PATCH /settings: every section with every field, each field's schema
   * its change schema's, so `Settings` (derived from the same registrations) is its type.
   */
  answerSchema(): ValueSchema<Settings> {
    // A schema printed afresh: the document's copy is its own, the change checks keep theirs.
    const sections = (this.changeValidator.toJSONSchema() as JsonSchema).properties as Record<string, JsonSchema>
    return {
      type: 'object',
      required: this.sectionNames,
      properties: Object.fromEntries(
        this.sectionNames.map((name) => [
          name,
          { ...sections[name], required: this.fieldNames(name), description: `Defaults: ${JSON.stringify(this.defaults(name))}` },
        ])
      ),
    }
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
const coreSettings = [
  sectionFields('general', {
    defaults: { gatewayName: 'SMS gateway' },
    change: { gatewayName: vine.string().trim().minLength(1).maxLength(80) },
  }),
  sectionFields('sending', {
    defaults: { timezone: 'UTC' },
    change: {
      // The platform time zone: daily backup time (docs/operations.md, The schedule), midnight
      // quota reset (docs/sending.md, How a message leaves).
      timezone: vine
        .string()
        .trim()
        .use(timeZone())
        .use(documentedAs({ description: 'IANA time zone name', examples: ['Europe/Paris'] })),
    },
  }),
  sectionFields('reception', {
    defaults: { localPrefix: null },
    change: {
      // Completes a local dialled number to E.164 (`0612345678` with `+33`). null: E.164 only.
      localPrefix: vine
        .string()
        .trim()
        .use(callingCode())
        .use(documentedAs({ pattern: '^\\+\\d{1,3}$', examples: ['+33'] }))
        .nullable(),
    },
  }),
  sectionFields('notifications', {
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
      // The SMTP server alerts are e-mailed through; null: no e-mail channel.
      smtpHost: vine.string().trim().minLength(1).maxLength(253).regex(/^[A-Za-z0-9.:[\]-]+$/).nullable(),
      smtpPort: vine.number({ strict: true }).withoutDecimals().range([1, 65535]),
      // starttls (upgrade on 587), tls (implicit, 465) or none (a trusted local relay).
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
  }),
]
settingsCatalogue.add(coreSettings)
