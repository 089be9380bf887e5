import { exportPermissions } from '#modules/exports/permissions'
import { defineRoutes, type RouteContract } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { exportColumns, type ExportDataset } from '#modules/exports/services/export_datasets'
import { MAX_EXPORT_IDS } from '#modules/messages/public'
import { exportQueryValidator, messageExportQueryValidator } from '#modules/exports/validators/export_validators'

const ExportsController = () => import('#modules/exports/controllers/exports_controller')

/** Bulk exports (CSV or JSON) and the database export. They keep working while the license is withdrawn. */
export function exportRoutes(registry: RouteRegistry) {
  registry.describeTag('Exports', 'Messages, contacts and conversations as CSV or JSON; the whole database as a SQLite file')

  // The operationId stays a literal type, so each export's handler reads its own query typed.
  const dataExport = <const Id extends string, Query extends typeof exportQueryValidator>(
    dataset: ExportDataset,
    path: string,
    operationId: Id,
    query: Query,
    selection = ''
  ) => ({
    method: 'GET',
    path,
    operationId,
    summary: `Export every ${dataset.replace(/s$/, '')}, oldest first`,
    description:
      selection +
      `Columns in this order: ${exportColumns[dataset].join(', ')}. Streamed as it is read. An empty export is the ` +
      'header line (CSV) or `[]` (JSON); a missing value or date is an empty field (null in JSON); in CSV booleans are ' +
      'true/false and tags are joined by `;`.' +
      (dataset === 'conversations' ? ' Conversations carry no message text.' : ''),
    tag: 'Exports',
    access: exportPermissions['exports.data'],
    query,
    answer: {
      status: 200,
      description: `The ${dataset}: CSV (default) or a JSON array (format=json)`,
      contentType: 'text/csv',
      schema: {
        type: 'string',
        description: `CSV with the header line ${exportColumns[dataset].join(',')}; a text cell starting like a spreadsheet formula (=, +, -, @) and not a plain number gets a leading apostrophe`,
      },
      alternatives: {
        'application/json': {
          type: 'array',
          items: { type: 'object', properties: Object.fromEntries(exportColumns[dataset].map((column) => [column, {}])) },
        },
      },
    },
    handler: [ExportsController, dataset],
  }) satisfies RouteContract

  return defineRoutes([
    {
      ...dataExport(
        'messages',
        '/api/v1/export/messages',
        'exportMessages',
        messageExportQueryValidator,
        'Without filters, every message. With the filters of GET /messages (q included), the messages they match; with ids ' +
          `(at most ${MAX_EXPORT_IDS}), those messages; both together, those of the ids that match. `
      ),
      errors: ['INVALID_PHONE'],
    },
    dataExport('contacts', '/api/v1/export/contacts', 'exportContacts', exportQueryValidator),
    dataExport('contacts', '/api/v1/contacts/export', 'exportContactsFromContacts', exportQueryValidator),
    dataExport('conversations', '/api/v1/export/conversations', 'exportConversations', exportQueryValidator),
    {
      method: 'GET',
      path: '/api/v1/export/database',
      operationId: 'exportDatabase',
      summary: 'A fresh consistent copy of the whole database, accounts included',
      description:
        'Taken while the gateway keeps serving (VACUUM INTO on a read-only connection), streamed, and its temporary ' +
        'file removed afterwards. Needs temporary space of about the database size in the data folder.',
      tag: 'Exports',
      access: exportPermissions['exports.database'],
      answer: { status: 200, description: 'The SQLite database file', contentType: 'application/vnd.sqlite3', schema: { type: 'string', format: 'binary' } },
      handler: [ExportsController, 'database'],
    },
  ])
}

/** The module's contracts as typed, for its handlers' input (`routeInputs<ExportRoutes>()`). */
export type ExportRoutes = ReturnType<typeof exportRoutes>
