import { test } from '@japa/runner'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { ApiKeyService } from '#modules/auth/services/api_key_service'
import type { ApiRequest } from '@japa/api-client'
import { accountWithRole, asBrowser, signIn, useTestKeys } from '#tests/helpers/callers'

/**
 * Controllers are made once and shared by every request: a write's Activity entry names its own
 * caller because the caller is passed to the service, never kept by the controller or a service
 * between two requests (docs/modules.md, Getting a service).
 */
test.group('Activity entries of concurrent writes', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(async () => {
    await db.from('activity_entries').where('kind', 'rule.created').delete()
    await db.from('automation_rules').delete()
    return async () => {
      await db.from('automation_rules').delete()
    }
  })

  test('two keys and a signed-in account creating rules at the same time: each entry names the caller that made its rule', async ({ client, assert }) => {
    const keys = await app.container.make(ApiKeyService)
    const made = await Promise.all(['Concurrent writer A', 'Concurrent writer B'].map((name) => keys.create({ name, scope: 'admin' }, null)))
    const account = await accountWithRole('superadmin')
    const session = await signIn(client, account.email)
    const writers = [
      ...made.map(({ apiKey, secret }, index) => ({
        label: 'AB'[index],
        actor: `api_key:${apiKey.id}`,
        name: apiKey.name,
        send: (request: ApiRequest) => request.header('x-api-key', secret),
      })),
      { label: 'S', actor: `account:${account.id}`, name: account.name, send: (request: ApiRequest) => asBrowser(request, session) },
    ]
    try {
      // Interleaved: A, B, S, A, B, S... all in flight at once.
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) => {
          const writer = writers[index % writers.length]
          return writer.send(client.post('/api/v1/rules')).json({ name: `Rule ${writer.label} ${index}`, actions: [{ type: 'opt_in' }] })
        })
      )
      for (const answer of answers) answer.assertStatus(201)

      const entries = await db.from('activity_entries').where('kind', 'rule.created').whereIn('actor', writers.map((writer) => writer.actor))
      assert.lengthOf(entries, 30)
      const rules = new Map((await db.from('automation_rules').select('id', 'name')).map((rule) => [String(rule.id), rule.name as string]))
      for (const entry of entries) {
        const ruleName = rules.get(JSON.parse(entry.details).ruleId)
        const writer = writers.find((candidate) => ruleName?.startsWith(`Rule ${candidate.label} `))
        assert.exists(writer, `the rule of entry ${entry.id}`)
        assert.deepEqual({ actor: entry.actor, actorName: entry.actor_name }, { actor: writer!.actor, actorName: writer!.name }, ruleName)
      }
      // Each caller made its ten.
      for (const writer of writers) assert.lengthOf(entries.filter((entry) => entry.actor === writer.actor), 10)
    } finally {
      for (const { apiKey } of made) await keys.revoke(apiKey.id, null)
    }
  })
})
