import { test } from '@japa/runner'
import type { IncomingMessage } from 'node:http'
import { collapseRepeatedSlashes } from '#core/http/request_path'

const collapsed = (url: string) => {
  const request = { url } as IncomingMessage
  collapseRepeatedSlashes(request)
  return request.url
}

test.group('A request path with repeated slashes', () => {
  test('its repeated slashes are one; the query is left as it is', ({ assert }) => {
    assert.equal(collapsed('/api/mobile/v1//device'), '/api/mobile/v1/device')
    assert.equal(collapsed('//api///v1/messages?cursor=a//b&x=1'), '/api/v1/messages?cursor=a//b&x=1')
    assert.equal(collapsed('/api/v1/messages?next=https://x'), '/api/v1/messages?next=https://x')
    assert.equal(collapsed('/health'), '/health')
    assert.equal(collapsed('/'), '/')
  })
})
