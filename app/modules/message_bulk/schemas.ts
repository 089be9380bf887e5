const count = { type: 'integer', minimum: 0 } as const

/** The answer of a bulk delete or retry: what the ids or the filter chose, and what was done. */
export const bulkOutcomeSchema = {
  type: 'object',
  required: ['matched', 'changed', 'skipped'],
  additionalProperties: false,
  properties: {
    matched: { ...count, description: 'Messages the ids named (each once) or the filter matched' },
    changed: { ...count, description: 'Deleted, or queued again' },
    skipped: {
      type: 'object',
      description: 'The rest, counted by reason; a reason with none is absent',
      additionalProperties: false,
      properties: { not_found: count, not_failed: count },
    },
  },
} as const
