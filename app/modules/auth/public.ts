/**
 * What the auth module offers other modules (docs/modules.md, module boundaries). Anything not
 * exported here is the module's own business and may change without notice.
 */
export { UserService } from '#modules/auth/services/user_service'
