import vine from '@vinejs/vine'
import type { FieldContext } from '@vinejs/vine/types'
import { DateTime } from 'luxon'
import { ApiError } from '#core/http/api_error'
import { Clock } from '#core/time/clock'
import { PhoneNumbers } from '#core/phone_numbers/phone_numbers'
import { SettingsStore } from '#core/settings/settings_store'
import { documentedAs, isoDateTimeSchema } from '#core/contract/schemas'
import { refuse, withRefusals } from '#core/contract/refusals'
import { messageCategories } from '#modules/messages/public'
import { assertShortLinksPossible } from '#modules/links/public'

/** 1 to 500 recipients; more is a campaign (docs/sending.md, The request). */
export const MAX_RECIPIENTS = 500

/** What the send's rules read besides the request: the local prefix and the clock's time. */
export interface SendCheckMeta {
  localPrefix: string | null
  now: Date
}

/**
 * The order the send's own refusals are answered in when a request has several (docs/sending.md,
 * The request): the text, short links, the numbers, then the date.
 */
const RANK = { body: 1, shortenLinks: 2, to: 3, scheduledAt: 4 } as const

const phoneNumbers = new PhoneNumbers()

function metaOf(field: FieldContext): SendCheckMeta {
  return field.meta as SendCheckMeta
}

/** Missing, null or blank: EMPTY_BODY; any other text is taken as is (no length limit). */
const messageText = vine.createRule(
  (value: unknown, _options: undefined, field: FieldContext) => {
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      refuse(field, new ApiError('EMPTY_BODY', 'The message has no text: send a non-empty body'), RANK.body)
    } else if (typeof value !== 'string') {
      refuse(field, ApiError.validation('body', 'string', 'The body field must be text'), RANK.body)
    }
  },
  { implicit: true }
)

/** One number or a list of 1 to 500, each E.164 or local dialled form, made E.164. */
const recipients = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length === 0) {
    return refuse(field, ApiError.validation('to', 'recipients', 'The to field must be one phone number or an array of 1 to 500'), RANK.to)
  }
  if (list.length > MAX_RECIPIENTS) {
    return refuse(
      field,
      new ApiError('VALIDATION_ERROR', `A send takes at most ${MAX_RECIPIENTS} numbers; use a campaign for more`, [
        { field: 'to', rule: 'maxLength', message: `At most ${MAX_RECIPIENTS} numbers per send; use a campaign for more`, max: MAX_RECIPIENTS },
      ]),
      RANK.to
    )
  }
  const { localPrefix } = metaOf(field)
  const numbers: string[] = []
  const bad: number[] = []
  list.forEach((entry, position) => {
    try {
      numbers.push(phoneNumbers.normalize(entry, localPrefix, position))
    } catch {
      bad.push(position)
    }
  })
  if (bad.length) {
    // The number itself never appears in an error, only where it stands in `to`.
    const message = `The number at position ${bad[0]} of to is not in E.164 format${localPrefix ? ' or local dialled form' : ''}`
    return refuse(field, new ApiError('INVALID_PHONE', message, { field: 'to', position: bad[0], positions: bad }), RANK.to)
  }
  field.mutate(numbers, field)
})

/** A future ISO 8601 date with a four-digit year, made a UTC DateTime. */
const futureDate = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  const text = value as string
  const parsed = DateTime.fromISO(text, { zone: 'utc', setZone: true })
  // Four-digit years only: stored dates compare as text, and "+275760-..." sorts before "2026-...".
  if (!parsed.isValid || !/^\d{4}-/.test(text) || parsed.toUTC().year > 9999) {
    return refuse(field, ApiError.validation('scheduledAt', 'date', 'The scheduledAt field must be an ISO 8601 date with a four-digit year'), RANK.scheduledAt)
  }
  const { now } = metaOf(field)
  if (parsed.toMillis() <= now.getTime()) {
    return refuse(field, new ApiError('SCHEDULED_AT_IN_PAST', 'scheduledAt must be in the future', { field: 'scheduledAt', now: now.toISOString() }), RANK.scheduledAt)
  }
  field.mutate(parsed.toUTC(), field)
})

/** shortenLinks: true needs the address recipients reach the gateway at. */
const shortLinksPossible = vine.createRule((value: unknown, _options: undefined, field: FieldContext) => {
  if (value !== true) return
  try {
    assertShortLinksPossible()
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    refuse(field, error, RANK.shortenLinks)
  }
})

/**
 * The send request (docs/sending.md, The request). `to`, `body`, `scheduledAt` and
 * `shortenLinks` carry the send's own refusals (INVALID_PHONE with the position, EMPTY_BODY,
 * SCHEDULED_AT_IN_PAST), answered when the handler takes the request, after the idempotent
 * replay (`Refusable.accepted`). templateId and variables are accepted and ignored, as that page says.
 */
export const sendValidator = withRefusals(
  vine.withMetaData<SendCheckMeta>().compile(
    vine.object({
      to: vine
        .any()
        .use(recipients())
        .use(
          documentedAs({
            description: `One number, or an array of 1 to ${MAX_RECIPIENTS}: E.164, or local dialled form when Settings > Reception has a local prefix`,
            oneOf: [
              { type: 'string', examples: ['+33612345678'] },
              { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_RECIPIENTS },
            ],
          })
        )
        .transform((numbers) => numbers as string[]),
      body: vine
        .any()
        .use(messageText())
        .use(documentedAs({ type: 'string', minLength: 1, description: 'Any non-empty text; no length limit. Missing or empty: EMPTY_BODY' }))
        .transform((text) => text as string)
        .optional(),
      deviceId: vine.string().trim().minLength(1).maxLength(64).optional(),
      simSlot: vine.number({ strict: true }).in([0, 1]).optional(),
      scheduledAt: vine
        .string()
        .use(futureDate())
        .use(documentedAs({ ...isoDateTimeSchema, description: 'Future ISO 8601 date; the message stays queued until then' }))
        .transform((date) => date as unknown as DateTime)
        .optional(),
      category: vine.enum(messageCategories).optional(),
      shortenLinks: vine.boolean({ strict: true }).use(shortLinksPossible()).optional(),
      templateId: vine.any().optional(),
      variables: vine.any().optional(),
    })
  ),
  // Missing, body is refused (EMPTY_BODY): once accepted, it is there.
  (request) => ({ ...request, body: request.body as string })
)

/** A send request its rules accepted: numbers in E.164, the text, the date as a DateTime. */
export type SendInput = ReturnType<Awaited<ReturnType<typeof sendValidator.validate>>['accepted']>

/**
 * The rules' metadata for a request: read per request, as a setting may change between two,
 * from the settings and clock the sending provider resolves once.
 */
export function sendCheckMeta(settings: SettingsStore, clock: Clock): () => Promise<SendCheckMeta> {
  return async () => ({ localPrefix: (await settings.get('reception')).localPrefix, now: clock.now() })
}
