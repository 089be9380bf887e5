import { licensePermissions } from '#modules/license/permissions'
import { defineRoutes } from '#core/contract/route_contract'
import type { RouteRegistry } from '#core/contract/route_registry'
import { licenseStatusSchema } from '#modules/license/schemas'
import { replaceLicenseKeyValidator } from '#modules/license/validators/license_validators'

const LicenseController = () => import('#modules/license/controllers/license_controller')

/** GET and PUT /api/v1/license. */
export function licenseRoutes(registry: RouteRegistry) {
  registry.describeTag(
    'License',
    'The license state and key. Without a license server the gateway runs in community mode; while the license is ' +
      'withdrawn, reads and exports keep working and writes answer LICENSE_BLOCKED'
  )
  const licenseStatus = registry.addSchema('LicenseStatus', licenseStatusSchema)

  return defineRoutes([
    {
      method: 'GET',
      path: '/api/v1/license',
      operationId: 'getLicense',
      summary: 'License state',
      tag: 'License',
      access: licensePermissions['license.read'],
      answer: { status: 200, description: 'The license state and key status', schema: licenseStatus },
      handler: [LicenseController, 'show'],
    },
    {
      method: 'PUT',
      path: '/api/v1/license',
      operationId: 'replaceLicenseKey',
      summary: 'Enter the license key',
      description:
        'Stores the key encrypted with the master key and asks the license server at once, in the background: read ' +
        'GET /license for the outcome. Open while the license is withdrawn, since entering a valid key is how a ' +
        'withdrawn gateway recovers.',
      tag: 'License',
      // Not a write for the license gate on purpose: it must work while withdrawn.
      access: licensePermissions['license.change'],
      body: replaceLicenseKeyValidator,
      answer: { status: 200, description: 'The license state with the new key', schema: licenseStatus },
      handler: [LicenseController, 'update'],
    },
  ])
}

/** The contracts as typed, for their handlers' input (`routeInputs<LicenseRoutes>()`). */
export type LicenseRoutes = ReturnType<typeof licenseRoutes>
