import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { readFileSync } from 'node:fs'
import type { HttpContext } from '@adonisjs/core/http'
import { inject } from '@adonisjs/core'
import { RouteRegistry } from '#core/contract/route_registry'
import { buildOpenApiDocument } from '#core/contract/openapi_document'
import { ApiError } from '#core/http/api_error'

const require = createRequire(import.meta.url)
const swaggerUiDir = dirname(require.resolve('swagger-ui-dist/package.json'))
const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))

/** The reference page's assets, served from the installed npm package: never from a CDN. */
const referenceAssets: Record<string, string> = {
  'swagger-ui.css': join(swaggerUiDir, 'swagger-ui.css'),
  'swagger-ui-bundle.js': join(swaggerUiDir, 'swagger-ui-bundle.js'),
  'favicon-32x32.png': join(swaggerUiDir, 'favicon-32x32.png'),
}

/**
 * Starts Swagger UI. Served as a file rather than inline so the page also works under a strict
 * Content-Security-Policy. A key typed into "Authorize" stays in the tab (no persistence).
 */
const referenceScript = `window.addEventListener('load', function () {
  window.SwaggerUIBundle({
    url: '/api-docs/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: false,
    displayRequestDuration: true
  })
})
`

let cachedDocument: Record<string, unknown> | null = null

export const gatewayVersion: string = packageJson.version

export const openApiInfo = {
  title: 'SMS gateway API',
  version: gatewayVersion,
  description:
    'The JSON API of this self-hosted SMS gateway. Integrations authenticate with an API key in the X-API-KEY header; ' +
    'the dashboard uses a session cookie. Errors answer {error: {code, message, details?, requestId}}; lists answer ' +
    '{data, nextCursor}. Dates are ISO 8601 UTC; phone numbers are E.164. Conventions: docs/api-conventions.md.',
}

@inject()
export default class ApiDocsController {
  constructor(private registry: RouteRegistry) {}

  /** GET /api-docs/openapi.json: the OpenAPI 3.1 contract of this installed version. */
  async openapi() {
    cachedDocument ??= buildOpenApiDocument(this.registry, openApiInfo)
    return cachedDocument
  }

  /** GET /api/v1/: the interactive reference. Reading needs no sign-in; running a call needs a key. */
  async reference({ response }: HttpContext) {
    response.header('Content-Type', 'text/html; charset=utf-8')
    return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>SMS gateway API reference</title>
  <link rel="icon" href="/api-docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/api-docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/api-docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api-docs/assets/reference.js"></script>
</body>
</html>
`
  }

  async asset({ params, response }: HttpContext) {
    response.header('Cache-Control', 'public, max-age=86400')
    if (params.file === 'reference.js') {
      response.header('Content-Type', 'text/javascript; charset=utf-8')
      return referenceScript
    }
    const file = Object.hasOwn(referenceAssets, params.file) ? referenceAssets[params.file] : undefined
    if (!file) throw ApiError.notFound('Asset')
    return response.download(file)
  }
}
