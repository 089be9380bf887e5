import { assert } from '@japa/assert'
import { apiClient } from '@japa/api-client'
import app from '@adonisjs/core/services/app'
import type { Config } from '@japa/runner/types'
import { pluginAdonisJS } from '@japa/plugin-adonisjs'
import testUtils from '@adonisjs/core/services/test_utils'
import { createGatewayServer, upgradeRoutes } from '#core/http/upgrade_routes'
import { checkEveryApiClientAnswer } from '#tests/helpers/answer_contract'
import { RouteRegistry } from '#core/contract/route_registry'

export const plugins: Config['plugins'] = [assert(), apiClient(), pluginAdonisJS(app)]

/**
 * The app boots on a fresh temporary data folder (bin/test.ts); the core provider migrates its
 * database at start. Functional suites also get a real HTTP server on a loopback port, and every
 * answer their api client receives is checked against the OpenAPI document (answer_contract.ts).
 */
export const runnerHooks: Required<Pick<Config, 'setup' | 'teardown'>> = {
  setup: [() => remakeControllersOnSwap()],
  teardown: [],
}

/**
 * A test swaps a service in the container after the gateway started (a backup snapshot that
 * fails, a license service on a fake server). Controllers are made once, at their route's first
 * request: each swap or restore has them made again at their next request, with what the
 * container gives then.
 */
async function remakeControllersOnSwap() {
  const registry = await app.container.make(RouteRegistry)
  const container = app.container as unknown as Record<'swap' | 'restore' | 'restoreAll', (...args: unknown[]) => void>
  for (const method of ['swap', 'restore', 'restoreAll'] as const) {
    const original = container[method].bind(app.container)
    container[method] = (...args: unknown[]) => {
      original(...args)
      registry.remakeControllers()
    }
  }
}

export const configureSuite: Config['configureSuite'] = (suite) => {
  if (['browser', 'functional', 'e2e'].includes(suite.name)) {
    suite.setup(() => checkEveryApiClientAnswer())
    return suite.setup(() => testUtils.httpServer().start((handler) => createGatewayServer(handler, upgradeRoutes)))
  }
}
