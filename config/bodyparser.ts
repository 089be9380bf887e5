import { defineConfig } from '@adonisjs/core/bodyparser'
import { MAX_BODY_BYTES } from '#core/http/body_guard_middleware'

/**
 * JSON only, capped at 2 MiB (docs/api-conventions.md, Paths, formats, dates and Errors). The body
 * guard refuses a declared Content-Length over the cap and any other content type before this
 * parser reads a byte; the limit here stops a chunked body that grows past it while being read.
 */
export default defineConfig({
  allowedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
  json: {
    encoding: 'utf-8',
    limit: MAX_BODY_BYTES,
    strict: true,
    types: ['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report'],
    convertEmptyStringsToNull: false,
  },
  form: {
    encoding: 'utf-8',
    limit: MAX_BODY_BYTES,
    queryString: {},
    convertEmptyStringsToNull: false,
    types: ['application/x-www-form-urlencoded'],
  },
  raw: {
    encoding: 'utf-8',
    limit: MAX_BODY_BYTES,
    types: ['text/*'],
  },
  multipart: {
    autoProcess: false,
    convertEmptyStringsToNull: false,
    processManually: [],
    encoding: 'utf-8',
    fieldsLimit: MAX_BODY_BYTES,
    limit: MAX_BODY_BYTES,
    types: ['multipart/form-data'],
  },
})
