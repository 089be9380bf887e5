import { test } from '@japa/runner'
import db from '@adonisjs/lucid/services/db'
import emitter from '@adonisjs/core/services/emitter'
import { testKeys, useTestKeys } from '#tests/helpers/callers'
import { clearMessaging, sendAs } from '#tests/helpers/messages'
import { findAddresses } from '#core/sms/links_in_text'

const base = () => process.env.GATEWAY_PUBLIC_URL!

test.group('Short links', (group) => {
  group.setup(() => useTestKeys())
  group.each.setup(() => clearMessaging())

  test('shortenLinks replaces every http(s) address before queueing; the same address twice shares one link', async ({ client, assert }) => {
    const text = 'See https://shop.example/a?x=1 and http://blog.example/post. Again: https://shop.example/a?x=1!'
    const response = await sendAs(client, { to: ['+33612345678', '+447911123456'], body: text, shortenLinks: true })
    response.assertStatus(202)
    const sent = response.body().accepted[0].body as string
    assert.notInclude(sent, 'shop.example')
    assert.notInclude(sent, 'blog.example')
    const shortLinks = sent.match(new RegExp(`${base().replace(/[.:/]/g, '\\$&')}/l/[0-9A-Za-z]{7}`, 'g'))!
    assert.lengthOf(shortLinks, 3)
    assert.equal(shortLinks[0], shortLinks[2])
    assert.notEqual(shortLinks[0], shortLinks[1])
    // Sentence punctuation stays in the text, outside the link.
    assert.match(sent, /\/l\/[0-9A-Za-z]{7}\. Again: /)
    assert.match(sent, /\/l\/[0-9A-Za-z]{7}!$/)
    // Every recipient gets the same links; two links in all.
    assert.equal(response.body().accepted[1].body, sent)
    const links = await db.from('links').count('* as total').first()
    assert.equal(Number(links.total), 2)
    // The stored body carries the short links too.
    const stored = await client.get(`/api/v1/messages/${response.body().accepted[0].id}`).header('x-api-key', testKeys.read)
    assert.equal(stored.body().body, sent)
  })

  test("an address that already is one of the gateway's links is left alone", async ({ client, assert }) => {
    const existing = `${base()}/l/AbCdEf1`
    const response = await sendAs(client, { to: '+33612345678', body: `Old link ${existing} stays`, shortenLinks: true })
    assert.equal(response.body().accepted[0].body, `Old link ${existing} stays`)
    const links = await db.from('links').count('* as total').first()
    assert.equal(Number(links.total), 0)
  })

  test('without shortenLinks the text is untouched, and the segments count the text as sent', async ({ client, assert }) => {
    const text = `Read https://example.org/${'x'.repeat(150)}`
    const plain = await sendAs(client, { to: '+33612345678', body: text })
    assert.equal(plain.body().accepted[0].body, text)
    assert.equal(plain.body().accepted[0].segments, 2)
    const short = await sendAs(client, { to: '+33612345678', body: text, shortenLinks: true })
    assert.equal(short.body().accepted[0].segments, 1)
  })

  test('GET /l/{code} redirects with 302, counts the click and emits link.clicked', async ({ client, assert }) => {
    const response = await sendAs(client, { to: '+33612345678', body: 'Go https://example.org/landing', shortenLinks: true })
    const shortUrl = (response.body().accepted[0].body as string).split(' ')[1]
    const path = new URL(shortUrl).pathname
    const events = emitter.fake(['link.clicked'])
    try {
      for (let click = 0; click < 2; click++) {
        const followed = await client.get(path).redirects(0)
        followed.assertStatus(302)
        assert.equal(followed.header('location'), 'https://example.org/landing')
      }
      const link = await db.from('links').first()
      events.assertEmittedCount('link.clicked', 2)
      events.assertEmitted('link.clicked', ({ data }) => data.id === String(link.id))
      assert.equal(link.clicks, 2)
    } finally {
      emitter.restore()
    }
  })

  test('an unknown code is 404 in the error format', async ({ client, assert }) => {
    for (const code of ['Nope123', '../../etc', 'x'.repeat(40)]) {
      const response = await client.get(`/l/${encodeURIComponent(code)}`).redirects(0)
      response.assertStatus(404)
      assert.equal(response.body().error.code, 'NOT_FOUND')
    }
  })

  test('GET /links lists url, shortUrl, clicks and createdAt with shortUrlLength', async ({ client, assert }) => {
    await sendAs(client, { to: '+33612345678', body: 'https://a.example and https://b.example', shortenLinks: true })
    const response = await client.get('/api/v1/links').header('x-api-key', testKeys.read)
    response.assertStatus(200)
    assert.lengthOf(response.body().data, 2)
    const [link] = response.body().data
    assert.properties(link, ['id', 'url', 'shortUrl', 'clicks', 'createdAt'])
    assert.equal(link.clicks, 0)
    assert.equal(response.body().shortUrlLength, link.shortUrl.length)
    assert.equal(response.body().shortUrlLength, `${base()}/l/`.length + 7)
    assert.isNull(response.body().nextCursor)
  })

  test('address detection keeps query strings and balanced brackets, drops trailing punctuation', ({ assert }) => {
    assert.deepEqual(findAddresses('x https://a.example/p?q=1&r=2, y'), ['https://a.example/p?q=1&r=2'])
    assert.deepEqual(findAddresses('(see https://en.wikipedia.org/wiki/Foo_(bar))'), ['https://en.wikipedia.org/wiki/Foo_(bar)'])
    assert.deepEqual(findAddresses('HTTPS://UPPER.example/X.'), ['HTTPS://UPPER.example/X'])
    assert.deepEqual(findAddresses('ftp://no.example and mailto:x@y'), [])
  })
})
