import { inject } from '@adonisjs/core'
import type { HttpContext } from '@adonisjs/core/http'
import { Transform, type Readable } from 'node:stream'
import { ApiError } from '#core/http/api_error'
import { idParam } from '#core/http/route_params'
import { ContactImports } from '#modules/contact_imports/services/contact_imports'
import { MAX_IMPORT_BYTES } from '#modules/contact_imports/services/contact_import_file'
import { routeInputs } from '#core/contract/route_contract'
import type { ImportRoutes } from '#modules/contact_imports/routes'

const input = routeInputs<ImportRoutes>()

@inject()
export default class ContactImportsController {
  constructor(private imports: ContactImports) {}

  /** The file part is streamed to the data folder as it arrives (never held in memory). */
  async upload({ request, response }: HttpContext) {
    let stored: Promise<Awaited<ReturnType<ContactImports['upload']>>> | null = null
    request.multipart.onFile('file', {}, async (part, reportChunk) => {
      // Each chunk is counted by the multipart reader, which ends a body past its limit with a 413
      // and reads the rest away (one sent in chunks has no length to refuse it by beforehand).
      const counted = (part as unknown as Readable).pipe(
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            void reportChunk(chunk)
            done(null, chunk)
          },
        })
      )
      part.on('error', (error) => counted.destroy(error))
      stored = this.imports.upload(part.filename || 'contacts.csv', counted)
      // The part is consumed by the upload; a failure is answered once processing ends.
      await stored.catch(() => {})
    })
    try {
      await request.multipart.process({ limit: MAX_IMPORT_BYTES + 64 * 1024 })
    } catch (error) {
      if ((error as { code?: string }).code === 'E_REQUEST_ENTITY_TOO_LARGE') {
        throw new ApiError('PAYLOAD_TOO_LARGE', 'The file is over 20 MiB: split it', { limitBytes: MAX_IMPORT_BYTES })
      }
      throw ApiError.validation('file', 'multipart', 'The upload could not be read: send the CSV as multipart/form-data in a field named file')
    }
    if (!stored) throw ApiError.validation('file', 'required', 'Send the CSV in a multipart/form-data field named file')
    const created = await stored
    response.status(201)
    return created
  }

  async start(ctx: HttpContext) {
    const { mapping, groupId, encoding } = input(ctx, 'startContactImport').body
    const started = await this.imports.start(idParam(ctx.params.id, 'Import'), mapping, groupId ? Number(groupId) : null, encoding)
    ctx.response.status(202)
    return started
  }

  async index(ctx: HttpContext) {
    return this.imports.list(input(ctx, 'listContactImports').query)
  }

  async show({ params }: HttpContext) {
    return this.imports.find(idParam(params.id, 'Import'))
  }

  async errors(ctx: HttpContext) {
    return this.imports.errors(idParam(ctx.params.id, 'Import'), input(ctx, 'listContactImportErrors').query)
  }
}
