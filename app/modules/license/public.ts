/**
 * What the license module offers other modules (docs/modules.md, module boundaries): its state,
 * which the auth module's access guard reads to refuse writes while the license is withdrawn.
 */
export { LicenseService } from '#modules/license/services/license_service'
