import vine from '@vinejs/vine'
import { documentedAs } from '#core/contract/schemas'
import { IMPORT_ENCODINGS } from '#modules/contact_imports/services/contact_import_encoding'

const column = vine.string().minLength(1).maxLength(200)

export const startContactImportValidator = vine.compile(
  vine.object({
    mapping: vine.object({
      phone: column.clone().use(documentedAs({ description: 'The column holding the numbers (E.164, or local form with Settings > Reception’s prefix)' })),
      firstName: column.clone().optional(),
      lastName: column.clone().optional(),
      company: column.clone().optional(),
      email: column.clone().optional(),
      tags: column.clone().optional().use(documentedAs({ description: 'A column of tags separated by , ; or |' })),
      fields: vine
        .record(column.clone())
        .optional()
        .use(documentedAs({ description: 'Custom field key → column (keys: a letter, then letters, digits or _, up to 40)' })),
    }),
    groupId: vine
      .string()
      .regex(/^\d{1,15}$/)
      .nullable()
      .optional()
      .use(documentedAs({ description: 'Every imported or updated contact joins this group' })),
    encoding: vine
      .enum(IMPORT_ENCODINGS)
      .optional()
      .use(
        documentedAs({
          description: 'How to read the file’s letters (the upload’s previews show both); the mapping names the columns as this encoding reads them. Default: the encoding detected',
        })
      ),
  })
)
