import { test } from '@japa/runner'
import { illFormedTextPath } from '#core/contract/well_formed_text'

test.group('Well-formed text in a request body', () => {
  test('names the first value or field name holding a lone surrogate, by its path', ({ assert }) => {
    assert.isNull(illFormedTextPath({ a: 'plain', b: ['😀 emoji', { c: 'é' }], d: 1, e: null, f: true }))
    assert.equal(illFormedTextPath({ a: 'ok', b: ['fine', { c: 'x\ud800' }] }), 'b.1.c')
    assert.equal(illFormedTextPath({ list: ['\udfff'] }), 'list.0')
    assert.equal(illFormedTextPath({ a: 'x\ud83d', z: '\ud800' }), 'a', 'the first in document order')
    // A half of a pair alone, at the end of a string, is as broken as one in the middle.
    assert.equal(illFormedTextPath({ tail: 'ok\ud83d' }), 'tail')
  })

  test('a field name with a lone surrogate is named with U+FFFD in its place', ({ assert }) => {
    assert.equal(illFormedTextPath({ outer: { ['k\udc00']: 1 } }), 'outer.k\ufffd')
  })

  test('follows nesting far deeper than a recursive walk could', ({ assert }) => {
    let deep: unknown = '\ud800'
    for (let level = 0; level < 200_000; level++) deep = [deep]
    const path = illFormedTextPath({ deep })
    assert.isString(path)
    assert.isTrue(path!.startsWith('deep.0.0.'))
  })
})
