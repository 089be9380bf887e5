import { defineLiveChannel, type LivePayload, type LiveTransmit } from '#core/live/live_channels'
import type { ContactImports } from '#modules/contact_imports/services/contact_imports'

const count = { type: 'integer', minimum: 0 } as const
const column = { type: 'string' } as const
const instantOrNull = { type: ['string', 'null'], format: 'date-time' } as const
const mapping = {
  type: 'object',
  required: ['phone'],
  additionalProperties: false,
  properties: {
    phone: column,
    firstName: column,
    lastName: column,
    company: column,
    email: column,
    tags: column,
    fields: { type: 'object', additionalProperties: column },
  },
} as const

/**
 * The channel signed-in dashboards subscribe to for contact imports' progress
 * (docs/live-channels.md, `imports`): the import as GET /api/v1/contacts/imports/{id} answers it,
 * without `sample` and `previews` (no contact value goes on a live channel).
 */
export const importsChannel = defineLiveChannel('imports', {
  type: 'object',
  required: ['type', 'import'],
  additionalProperties: false,
  properties: {
    type: { const: 'import.progress' },
    import: {
      type: 'object',
      required: [
        'id', 'status', 'fileName', 'encoding', 'columns', 'suggestedMapping', 'mapping', 'groupId', 'totalRows', 'processedRows',
        'created', 'updated', 'merged', 'invalid', 'error', 'createdAt', 'startedAt', 'finishedAt',
      ],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        status: { enum: ['awaiting_mapping', 'running', 'completed', 'failed'] },
        fileName: { type: 'string' },
        encoding: { enum: ['utf-8', 'windows-1252'] },
        columns: { type: 'array', items: column },
        suggestedMapping: mapping,
        mapping: { oneOf: [mapping, { type: 'null' }] },
        groupId: { type: ['string', 'null'] },
        totalRows: count,
        processedRows: count,
        created: count,
        updated: count,
        merged: count,
        invalid: count,
        error: { type: ['string', 'null'] },
        createdAt: { type: 'string', format: 'date-time' },
        startedAt: instantOrNull,
        finishedAt: instantOrNull,
      },
    },
  },
} as const)

/** The channel's name. */
export const IMPORTS_CHANNEL = importsChannel.name

export type LiveImportProgress = LivePayload<typeof importsChannel>

/** At most one progress broadcast per import per second; the last one always goes. */
const EVERY_MS = 1000

/**
 * Tells the dashboards how an import goes (`import.progress` with the import as the API answers
 * it: counts and status, never a contact), after committed chunks and at the end.
 */
export class LiveImports {
  #lastSent = new Map<number, number>()

  constructor(
    private transmit: () => Promise<LiveTransmit>,
    private imports: () => Promise<ContactImports>,
    private now: () => Promise<Date>
  ) {}

  async progressed(id: number, final: boolean): Promise<void> {
    const at = (await this.now()).getTime()
    if (!final && at - (this.#lastSent.get(id) ?? 0) < EVERY_MS) return
    this.#lastSent.set(id, at)
    if (final) this.#lastSent.delete(id)
    const found = await (await this.imports()).find(id)
    // Contact values (the first rows, as each encoding reads them) never go on a live channel.
    const { sample: _sample, previews: _previews, ...counts } = found
    importsChannel.broadcast(await this.transmit(), { type: 'import.progress', import: counts })
  }
}
