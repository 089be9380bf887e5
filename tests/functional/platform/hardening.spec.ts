import { test } from '@japa/runner'
import { gzipSync } from 'node:zlib'
import { request as httpRequest } from 'node:http'
import { readFileSync } from 'node:fs'
import app from '@adonisjs/core/services/app'
import db from '@adonisjs/lucid/services/db'
import { DataFolder } from '#core/data_folder/data_folder'
import { flushLogFile } from '#core/logging/log_file'
import { SettingsStore } from '#core/settings/settings_store'
import { testKeys, useTestKeys } from '#tests/helpers/callers'

const port = Number(process.env.PORT)

/** A raw request, to send bodies and headers a friendly client would not. */
function raw(method: string, path: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time: a pooled keep-alive socket may have been closed by the server.
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (response) => {
      let text = ''
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }))
    })
    request.on('error', reject)
    request.end(body)
  })
}

test.group('Bad input never crashes the gateway', (group) => {
  group.setup(() => useTestKeys())

  test('a compressed body is 415 (it could expand past the cap); identity is fine', async ({ assert }) => {
    const headers = { 'content-type': 'application/json', 'x-api-key': testKeys.admin }
    for (const [encoding, body] of [
      ['gzip', gzipSync('{"general":{}}')],
      ['gzip', 'not gzip at all'],
      ['snappy', '{}'],
    ] as const) {
      const answer = await raw('PATCH', '/api/v1/settings', { ...headers, 'content-encoding': encoding }, body)
      assert.equal(answer.status, 415)
      assert.equal(answer.body.error.code, 'UNSUPPORTED_MEDIA_TYPE')
    }
    const plain = await raw('PATCH', '/api/v1/settings', { ...headers, 'content-encoding': 'identity' }, '{"general":{}}')
    assert.equal(plain.status, 200)
  })

  test('absurdly nested JSON is 400, not a stack overflow', async ({ assert }) => {
    const depth = 200_000
    const body = `{"to":"+33612345678","body":"x","templateId":${'['.repeat(depth)}${']'.repeat(depth)}}`
    const answer = await raw('POST', '/api/v1/messages', { 'content-type': 'application/json', 'x-api-key': testKeys.send }, body)
    assert.equal(answer.status, 400)
    assert.equal(answer.body.error.code, 'VALIDATION_ERROR')
  })

  test('a database fault is 500 and its log line carries neither the number nor the text', async ({ client, assert }) => {
    await db.rawQuery('ALTER TABLE contacts RENAME TO contacts_away')
    try {
      const answer = await client
        .post('/api/v1/messages')
        .header('x-api-key', testKeys.send)
        .json({ to: '+33655555555', body: 'Confidential text 4242' })
      answer.assertStatus(500)
      assert.equal(answer.body().error.code, 'INTERNAL_ERROR')
    } finally {
      await db.rawQuery('ALTER TABLE contacts_away RENAME TO contacts')
    }
    flushLogFile()
    const file = readFileSync(DataFolder.current().logFile, 'utf8')
    assert.include(file, 'unexpected error while answering a request')
    assert.notInclude(file, '33655555555')
    assert.notInclude(file, 'Confidential text 4242')
  })

  test('concurrent settings changes never lose one another', async ({ assert }) => {
    const store = await app.container.make(SettingsStore)
    await store.update({ general: { stripDiacritics: false, trimWhitespace: false, uppercase: false } })
    await Promise.all([
      store.update({ general: { stripDiacritics: true } }),
      store.update({ general: { uppercase: true } }),
      store.update({ general: { trimWhitespace: true } }),
    ])
    store.invalidate()
    assert.deepInclude((await store.all()).general, { stripDiacritics: true, uppercase: true, trimWhitespace: true })
  })
})
