import vine from '@vinejs/vine'

export const exportQueryValidator = vine.compile(
  vine.object({
    format: vine.enum(['csv', 'json'] as const).optional(),
  })
)
