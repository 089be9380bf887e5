/*
 * HTTP middleware. Server middleware runs on every request, matched route or not, so the
 * request id and the body guard hold even for unknown routes (their list and order:
 * app/core/http/server_middleware.ts); router middleware runs on matched routes only. The body
 * parser is attached per route by the route registry (start/routes.ts), after the access check,
 * so an unknown caller never makes the gateway read a body.
 */
import server from '@adonisjs/core/services/server'

server.errorHandler(() => import('#core/http/exception_handler'))

server.use([() => import('#core/http/server_middleware')])
