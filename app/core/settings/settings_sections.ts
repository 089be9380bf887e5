import vine from '@vinejs/vine'
import { DateTime } from 'luxon'
import { isKnownCallingCode } from '#core/phone_numbers/phone_numbers'
import { documentedAs } from '#core/contract/schemas'

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

/**
 * The settings sections, each with its defaults and the schema of a partial change (every
 * field optional: an omitted field is left unchanged). Later modules extend these blocks.
 */
export const settingsSections = {
  general: {
    defaults: {
      gatewayName: 'SMS gateway',
      /** Text options applied when a message leaves for a phone (spec, Send request notes). */
      stripDiacritics: false,
      trimWhitespace: false,
      uppercase: false,
    },
    change: vine.object({
      gatewayName: vine.string().trim().minLength(1).maxLength(80).optional(),
      stripDiacritics: vine.boolean({ strict: true }).optional(),
      trimWhitespace: vine.boolean({ strict: true }).optional(),
      uppercase: vine.boolean({ strict: true }).optional(),
    }),
  },
  sending: {
    defaults: {
      /** The platform time zone: daily backup time, midnight quota reset. */
      timezone: 'UTC',
      /** Spec, Message status: 4 attempts by default. */
      maxAttempts: 4,
      /** How a SIM is chosen when the send does not force one. */
      routingMode: 'round_robin' as 'round_robin' | 'priority' | 'least_used',
      /** For routingMode priority: SIMs in order of preference; others come after. */
      priority: [] as Array<{ deviceId: string; simSlot: number }>,
      /** Destination prefix → phone (and SIM): the first matching rule wins. */
      prefixRules: [] as Array<{ prefix: string; deviceId: string; simSlot?: number | null }>,
      /** Minimum seconds between two SMS of one SIM (0: none). Held messages show sim_cadence. */
      simMinIntervalSeconds: 0,
      /** Most SMS per minute per SIM (null: no limit). Held messages show sim_rate. */
      simPerMinuteLimit: null as number | null,
    },
    change: vine.object({
      timezone: vine
        .string()
        .trim()
        .use(timeZone())
        .use(documentedAs({ description: 'IANA time zone name', examples: ['Europe/Paris'] }))
        .optional(),
      maxAttempts: vine.number().withoutDecimals().range([1, 10]).optional(),
      routingMode: vine.enum(['round_robin', 'priority', 'least_used'] as const).optional(),
      priority: vine
        .array(vine.object({ deviceId: vine.string().regex(/^\d{1,15}$/), simSlot: vine.number().in([0, 1]) }))
        .maxLength(100)
        .optional(),
      prefixRules: vine
        .array(
          vine.object({
            prefix: vine.string().regex(/^\+\d{1,14}$/),
            deviceId: vine.string().regex(/^\d{1,15}$/),
            // Absent or null: any SIM of the phone, in the routing mode's order.
            simSlot: vine.number().in([0, 1]).nullable().optional(),
          })
        )
        .maxLength(200)
        .optional(),
      simMinIntervalSeconds: vine.number().withoutDecimals().range([0, 3600]).optional(),
      simPerMinuteLimit: vine.number().withoutDecimals().range([1, 600]).nullable().optional(),
    }),
  },
  reception: {
    defaults: {
      /** Completes a local dialled number to E.164 (`0612345678` with `+33`). null: E.164 only. */
      localPrefix: null as string | null,
    },
    change: vine.object({
      localPrefix: vine
        .string()
        .trim()
        .use(callingCode())
        .use(documentedAs({ pattern: '^\\+\\d{1,3}$', examples: ['+33'] }))
        .nullable()
        .optional(),
    }),
  },
  notifications: {
    defaults: {
      /** Spec: the Backup failed alert is on by default. */
      backupFailedAlert: true,
      adminPhones: [] as string[],
      adminEmails: [] as string[],
      /** The SMTP server alerts are e-mailed through; null: no e-mail channel. */
      smtpHost: null as string | null,
      smtpPort: 587,
      /** starttls (upgrade on 587), tls (implicit, 465) or none (a trusted local relay). */
      smtpSecurity: 'starttls' as 'starttls' | 'tls' | 'none',
      smtpUsername: null as string | null,
      /** Write-only: stored sealed with the master key, answered as ******** when set. */
      smtpPassword: null as string | null,
      smtpFrom: null as string | null,
    },
    change: vine.object({
      backupFailedAlert: vine.boolean({ strict: true }).optional(),
      adminPhones: vine.array(e164).maxLength(10).distinct().optional(),
      adminEmails: vine.array(vine.string().email()).maxLength(10).distinct().optional(),
      smtpHost: vine.string().trim().minLength(1).maxLength(253).regex(/^[A-Za-z0-9.:[\]-]+$/).nullable().optional(),
      smtpPort: vine.number().withoutDecimals().range([1, 65535]).optional(),
      smtpSecurity: vine.enum(['starttls', 'tls', 'none'] as const).optional(),
      smtpUsername: vine.string().maxLength(254).nullable().optional(),
      smtpPassword: vine
        .string()
        .maxLength(500)
        .use(documentedAs({ description: 'Write-only. Answered as ******** when set; sending ******** back keeps it; null or empty clears it' }))
        .nullable()
        .optional(),
      smtpFrom: vine.string().trim().email().maxLength(254).nullable().optional(),
    }),
  },
  backup: {
    /** Spec, Settings backup block. */
    defaults: {
      enabled: true,
      frequency: 'daily' as 'daily' | 'interval',
      dailyAt: '03:00',
      intervalHours: 24,
      retention: 7,
    },
    change: vine.object({
      enabled: vine.boolean({ strict: true }).optional(),
      frequency: vine.enum(['daily', 'interval'] as const).optional(),
      dailyAt: vine
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/)
        .optional(),
      intervalHours: vine.number().withoutDecimals().range([1, 168]).optional(),
      retention: vine.number().withoutDecimals().range([1, 365]).optional(),
    }),
  },
} as const

export type SettingsSectionName = keyof typeof settingsSections
export type Settings = { [Name in SettingsSectionName]: (typeof settingsSections)[Name]['defaults'] }
export const settingsSectionNames = Object.keys(settingsSections) as SettingsSectionName[]

/**
 * Fields kept sealed with the master key and never answered in clear: answers show
 * SECRET_MASK when set, and SECRET_MASK sent back leaves the stored value as it is.
 */
export const secretSettingFields: Partial<Record<SettingsSectionName, string[]>> = { notifications: ['smtpPassword'] }
export const SECRET_MASK = '********'

/** The backup block answers 422 on an out-of-range value (spec, Backups endpoints). */
export const sectionsRefusedWith422: SettingsSectionName[] = ['backup']

/** PATCH /settings body: any subset of sections, each a partial change. */
export const settingsChangeValidator = vine.compile(
  vine.object(
    Object.fromEntries(settingsSectionNames.map((name) => [name, settingsSections[name].change.optional()])) as {
      [Name in SettingsSectionName]: ReturnType<(typeof settingsSections)[Name]['change']['optional']>
    }
  )
)

export const sectionValidators = Object.fromEntries(
  settingsSectionNames.map((name) => [name, vine.compile(settingsSections[name].change)])
) as { [Name in SettingsSectionName]: ReturnType<typeof vine.compile<(typeof settingsSections)[Name]['change']>> }
