import { test } from '@japa/runner'
import { decodeCursor, encodeCursor } from '#core/pagination/keyset_page'
import { toOpenApiPath } from '#core/contract/openapi_document'

test.group('Keyset cursor', () => {
  test('round-trips and is opaque', ({ assert }) => {
    const cursor = encodeCursor({ sortValue: '2026-05-04T09:30:00.000Z', id: 42 })
    assert.match(cursor, /^[\w-]+$/)
    assert.deepEqual(decodeCursor(cursor), { sortValue: '2026-05-04T09:30:00.000Z', id: 42 })
  })

  test('a malformed cursor is a VALIDATION_ERROR on the cursor field', ({ assert }) => {
    for (const bad of ['nope', '', Buffer.from('{"v":2,"s":1,"i":1}').toString('base64url'), Buffer.from('[1]').toString('base64url')]) {
      try {
        decodeCursor(bad)
        assert.fail(`accepted ${bad}`)
      } catch (error: any) {
        assert.equal(error.code, 'VALIDATION_ERROR')
        assert.equal(error.details[0].field, 'cursor')
      }
    }
  })
})

test.group('OpenAPI paths', () => {
  test('router patterns become OpenAPI templates', ({ assert }) => {
    assert.equal(toOpenApiPath('/api/v1/webhooks/:id/replay'), '/api/v1/webhooks/{id}/replay')
    assert.equal(toOpenApiPath('/api/v1/'), '/api/v1')
    assert.equal(toOpenApiPath('/'), '/')
  })
})
