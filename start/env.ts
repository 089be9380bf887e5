/*
 * Environment variables the gateway reads. None is required: bin/*.ts fill PORT, HOST and the
 * derived APP_KEY before this runs. Every variable is listed with its default in the README.
 */
import { Env } from '@adonisjs/core/env'

export default await Env.create(new URL('../', import.meta.url), {
  NODE_ENV: Env.schema.enum(['development', 'production', 'test'] as const),
  PORT: Env.schema.number(),
  HOST: Env.schema.string({ format: 'host' }),
  APP_KEY: Env.schema.string(),
  LOG_LEVEL: Env.schema.enum.optional(['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const),
  GATEWAY_DATA_DIR: Env.schema.string.optional(),
  GATEWAY_PUBLIC_URL: Env.schema.string.optional({ format: 'url', tld: false }),
  GATEWAY_LICENSE_KEY: Env.schema.string.optional(),
  GATEWAY_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: Env.schema.boolean.optional(),
  GATEWAY_LICENSE_SERVER: Env.schema.string.optional({ format: 'url', tld: false }),
  // Both or neither; bin/server.ts reads and checks the files before the application boots.
  GATEWAY_TLS_CERT_FILE: Env.schema.string.optional(),
  GATEWAY_TLS_KEY_FILE: Env.schema.string.optional(),
  // bench/profile.js only: adds the framework's floor route (start/routes.ts).
  GATEWAY_BENCH_FLOOR_ROUTE: Env.schema.boolean.optional(),
})
