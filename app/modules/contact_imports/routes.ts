import { contactPermissions } from '#modules/contacts/public'
import { defineRoutes } from '#core/contract/route_contract'
import { pageOf } from '#core/contract/schemas'
import { importErrorSchema, importSchemas } from '#modules/contact_imports/schemas'
import type { RouteRegistry } from '#core/contract/route_registry'
import { pageQueryValidator } from '#core/pagination/keyset_page'
import { startContactImportValidator } from '#modules/contact_imports/validators/contact_import_validators'
import { MAX_IMPORT_ROWS } from '#modules/contact_imports/services/contact_import_file'

const ContactImportsController = () => import('#modules/contact_imports/controllers/contact_imports_controller')

/** Contact imports from a CSV (docs/campaigns.md, Importing contacts from a CSV). */
export function importRoutes(registry: RouteRegistry) {
  const { contactImport } = importSchemas(registry)
  const importId = { id: 'Import identifier' }
  return defineRoutes([
    {
      method: 'POST',
      path: '/api/v1/contacts/imports',
      operationId: 'uploadContactImport',
      summary: 'Upload a CSV of contacts (up to 20 MiB or 100,000 rows); answers its columns, a sample and a suggested mapping',
      description:
        'multipart/form-data with the file in `file`: UTF-8 (a BOM is fine) or Windows-1252 (detected: see `encoding`), comma, ' +
        'semicolon or tab separated, a header row first; a UTF-16 file is refused (save it as “CSV UTF-8”). ' +
        `Nothing is imported yet: map the columns with POST /contacts/imports/{id}/start. More than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows ` +
        'or 20 MiB is refused (split the file).',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      upload: { field: 'file', maxBytes: 20 * 1024 * 1024 + 64 * 1024, description: 'The CSV file' },
      answer: { status: 201, description: 'The upload, waiting for its mapping', schema: contactImport },
      errors: ['VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      handler: [ContactImportsController, 'upload'],
    },
    {
      method: 'POST',
      path: '/api/v1/contacts/imports/:id/start',
      operationId: 'startContactImport',
      summary: 'Map the columns and import: numbers completed, duplicates merged, invalid rows reported',
      description:
        'The file is read with `encoding` (default: the one detected at upload), and the mapping names its columns as that encoding reads them. ' +
        'Runs in the background, 1,000 rows per transaction: a restart resumes after the last one, never writing a row twice. ' +
        'A number twice in the file is one contact (later non-empty values win); an existing contact gets the file’s non-empty ' +
        'values (tags added, custom fields merged; its opt-out is never changed). Progress: GET /contacts/imports/{id}, and live ' +
        'on the dashboards’ `imports` channel.',
      tag: 'Contacts',
      access: contactPermissions['contacts.change'],
      params: importId,
      body: startContactImportValidator,
      answer: { status: 202, description: 'Started', schema: contactImport },
      errors: ['NOT_FOUND', 'IMPORT_ALREADY_STARTED'],
      handler: [ContactImportsController, 'start'],
    },
    {
      method: 'GET',
      path: '/api/v1/contacts/imports',
      operationId: 'listContactImports',
      summary: 'Contact imports, newest first',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      query: pageQueryValidator,
      answer: { status: 200, description: 'A page of imports', schema: pageOf(contactImport) },
      handler: [ContactImportsController, 'index'],
    },
    {
      method: 'GET',
      path: '/api/v1/contacts/imports/:id',
      operationId: 'getContactImport',
      summary: 'One contact import and its progress',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      params: importId,
      answer: { status: 200, description: 'The import', schema: contactImport },
      errors: ['NOT_FOUND'],
      handler: [ContactImportsController, 'show'],
    },
    {
      method: 'GET',
      path: '/api/v1/contacts/imports/:id/errors',
      operationId: 'listContactImportErrors',
      summary: 'The rows an import refused, in file order, with the reason',
      description: 'row is the line in the file (the header is line 1). A reason never repeats the cell.',
      tag: 'Contacts',
      access: contactPermissions['contacts.read'],
      params: importId,
      query: pageQueryValidator,
      answer: {
        status: 200,
        description: 'A page of refused rows',
        schema: pageOf(importErrorSchema),
      },
      errors: ['NOT_FOUND'],
      handler: [ContactImportsController, 'errors'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<ImportRoutes>()`). */
export type ImportRoutes = ReturnType<typeof importRoutes>
