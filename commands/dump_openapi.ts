import { writeFile } from 'node:fs/promises'
import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import { RouteRegistry } from '#core/contract/route_registry'
import { buildOpenApiDocument } from '#core/contract/openapi_document'
import { openApiInfo } from '#core/system/api_docs_controller'

/**
 * Writes the OpenAPI 3.1 document without starting the server: the same one served at
 * /api-docs/openapi.json, for linting, client generation or a published reference.
 */
export default class DumpOpenApi extends BaseCommand {
  static commandName = 'openapi:dump'
  static description = 'Write the OpenAPI 3.1 contract of this version (as served at /api-docs/openapi.json)'
  static help = ['Prints to standard output, or writes to a file with --output:', '  node ace openapi:dump --output=openapi.json']
  static options: CommandOptions = { startApp: true }

  @flags.string({ description: 'File to write instead of standard output' })
  declare output?: string

  async run() {
    const registry = await this.app.container.make(RouteRegistry)
    const text = `${JSON.stringify(buildOpenApiDocument(registry, openApiInfo), null, 2)}\n`
    if (this.output) {
      await writeFile(this.output, text)
      this.logger.success(`OpenAPI document written to ${this.output}`)
    } else {
      process.stdout.write(text)
    }
  }
}
