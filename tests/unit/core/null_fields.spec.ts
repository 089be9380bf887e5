import { test } from '@japa/runner'
import { admitsNull, misplacedNullsOf } from '#core/contract/null_fields'

test.group('null only where the schema says nullable', () => {
  test('reads nullability from type, enum, const and anyOf/oneOf branches', ({ assert }) => {
    assert.isTrue(admitsNull({ type: ['string', 'null'] }))
    assert.isTrue(admitsNull({ anyOf: [{ enum: [0, 1] }, { type: 'null' }] }))
    assert.isTrue(admitsNull({ description: 'anything' }), 'an unconstrained schema')
    assert.isTrue(admitsNull({ enum: ['a', null] }))
    assert.isFalse(admitsNull({ type: 'string' }))
    assert.isFalse(admitsNull({ type: 'number', enum: [0, 1] }))
    assert.isFalse(admitsNull({ enum: [true] }))
    assert.isFalse(admitsNull({ const: 'x' }))
    assert.isFalse(admitsNull({ oneOf: [{ type: 'string' }, { type: 'array' }] }))
    assert.isFalse(admitsNull({ type: ['string', 'null'], oneOf: [{ type: 'string' }] }), 'every constraint must let it through')
  })

  test('walks objects and lists and names each misplaced null by its path', ({ assert }) => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        note: { type: ['string', 'null'] },
        sims: { type: 'array', items: { type: 'object', properties: { slot: { type: 'number' }, quota: { type: ['integer', 'null'] } } } },
        tags: { type: 'array', items: { type: 'string' } },
        open: {},
      },
    }
    const body = { name: null, note: null, sims: [{ slot: 0, quota: null }, { slot: null }], tags: ['a', null], open: null, unknown: null }
    assert.deepEqual(misplacedNullsOf(body, schema), ['name', 'sims.1.slot', 'tags.1'])
    assert.deepEqual(misplacedNullsOf({ name: 'x', note: null }, schema), [])
  })
})
