import { assert } from '@japa/assert'
import { apiClient } from '@japa/api-client'
import app from '@adonisjs/core/services/app'
import type { Config } from '@japa/runner/types'
import { pluginAdonisJS } from '@japa/plugin-adonisjs'
import testUtils from '@adonisjs/core/services/test_utils'
import { createGatewayServer, upgradeRoutes } from '#core/http/upgrade_routes'
import { checkEveryApiClientAnswer } from '#tests/helpers/answer_contract'

export const plugins: Config['plugins'] = [assert(), apiClient(), pluginAdonisJS(app)]

/**
 * The app boots on a fresh temporary data folder (bin/test.ts); the core provider migrates its
 * database at start. Functional suites also get a real HTTP server on a loopback port, and every
 * answer their api client receives is checked against the OpenAPI document (answer_contract.ts).
 */
export const runnerHooks: Required<Pick<Config, 'setup' | 'teardown'>> = {
  setup: [],
  teardown: [],
}

export const configureSuite: Config['configureSuite'] = (suite) => {
  if (['browser', 'functional', 'e2e'].includes(suite.name)) {
    suite.setup(() => checkEveryApiClientAnswer())
    return suite.setup(() => testUtils.httpServer().start((handler) => createGatewayServer(handler, upgradeRoutes)))
  }
}
