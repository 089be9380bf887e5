import type { RouteRegistry } from '#core/contract/route_registry'
import type { JsonOf } from '#core/contract/typed_schema'
import { isoDateTimeSchema, type PageOf } from '#core/contract/schemas'
import { IMPORT_ENCODINGS, type ImportEncoding } from '#modules/contact_imports/services/contact_import_encoding'

const count = { type: 'integer', minimum: 0 } as const
const nullableDate = { type: ['string', 'null'], format: 'date-time' } as const
const column = { type: 'string' } as const

const mapping = {
  type: 'object',
  required: ['phone'],
  properties: {
    phone: column,
    firstName: column,
    lastName: column,
    company: column,
    email: column,
    tags: column,
    fields: { type: 'object', additionalProperties: column, description: 'Custom field key → column' },
  },
} as const
const header = { type: 'array', items: { type: 'string' }, description: 'The header row (an empty header is named "Column N")' } as const
const rows = { type: 'array', items: { type: 'array', items: { type: 'string' } }, description: 'The first rows, as in the file' } as const
const suggestedMapping = {
  ...mapping,
  description: 'Columns matched by their header (the phone column by content too); other columns as custom fields. phone is "" when no column looks like one',
} as const
const preview = {
  type: 'object',
  required: ['columns', 'sample', 'suggestedMapping'],
  additionalProperties: false,
  properties: { columns: header, sample: rows, suggestedMapping },
} as const

/** A contact import; `resource` in services/contact_imports.ts answers it. */
export const contactImportSchema = {
  type: 'object',
  required: [
    'id', 'status', 'fileName', 'encoding', 'columns', 'sample', 'suggestedMapping', 'previews', 'mapping', 'groupId', 'totalRows', 'processedRows',
    'created', 'updated', 'merged', 'invalid', 'error', 'createdAt', 'startedAt', 'finishedAt',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    status: {
      enum: ['awaiting_mapping', 'running', 'completed', 'failed'],
      description:
        'awaiting_mapping: uploaded, waiting for POST …/start (dropped after 24 hours); running: being written, chunk by chunk; ' +
        'failed: see error',
    },
    fileName: { type: 'string' },
    encoding: {
      enum: [...IMPORT_ENCODINGS],
      description:
        'How the file’s letters are read: detected at upload (a UTF-8 BOM, or a file that is all UTF-8, is utf-8; a byte that ' +
        'is not UTF-8 means windows-1252, Excel’s plain “CSV”), or as chosen at start. columns, sample and suggestedMapping are read with it',
    },
    columns: header,
    sample: rows,
    suggestedMapping,
    previews: {
      oneOf: [
        {
          type: 'object',
          required: [...IMPORT_ENCODINGS],
          additionalProperties: false,
          properties: Object.fromEntries(IMPORT_ENCODINGS.map((encoding) => [encoding, preview])) as { [E in ImportEncoding]: typeof preview },
        },
        { type: 'null' },
      ],
      description:
        'While the upload waits for its mapping: its header, first rows and suggested mapping as each encoding reads them, ' +
        'so the encoding can be chosen by eye (accents right or garbled); null once started',
    },
    mapping: { oneOf: [mapping, { type: 'null' }], description: 'The mapping it was started with' },
    groupId: { type: ['string', 'null'] },
    totalRows: { ...count, description: 'Data rows in the file (empty lines aside)' },
    processedRows: { ...count, description: 'Rows written so far (committed chunk by chunk)' },
    created: { ...count, description: 'New contacts' },
    updated: { ...count, description: 'Existing contacts updated with the file’s non-empty values' },
    merged: { ...count, description: 'Rows whose number came earlier in the file: merged into that contact' },
    invalid: { ...count, description: 'Rows refused (see …/errors)' },
    error: { type: ['string', 'null'], description: 'Why a failed import stopped' },
    createdAt: isoDateTimeSchema,
    startedAt: nullableDate,
    finishedAt: nullableDate,
  },
} as const
export type ContactImportResource = JsonOf<typeof contactImportSchema>

/** A row an import refused (`row`: its line in the file). */
export const importErrorSchema = {
  type: 'object',
  required: ['row', 'reason'],
  additionalProperties: false,
  properties: { row: { type: 'integer' }, reason: { type: 'string' } },
} as const
export type ImportErrorPage = PageOf<typeof importErrorSchema>

/** The import's resource as published in the OpenAPI document. */
export function importSchemas(registry: RouteRegistry) {
  return { contactImport: registry.addSchema('ContactImport', contactImportSchema) }
}
