import { test } from '@japa/runner'
import { renderTemplate, templateVariables, withFallbacksOnly } from '#core/sms/template_text'

const ada = { phone: '+33612345678', firstName: 'Ada', lastName: 'Lovelace', company: null, email: 'ada@example.com', fields: { city: 'Paris' } }
const anonymous = { phone: '+33612345679' }

test.group('Template text', () => {
  test('variables take the recipient values', ({ assert }) => {
    assert.equal(renderTemplate('Hi {{firstName}} {{ lastName }} from {{city}}, {{phone}}', ada), 'Hi Ada Lovelace from Paris, +33612345678')
    assert.equal(renderTemplate('{{name}}', ada), 'Ada Lovelace')
    assert.equal(renderTemplate('{{name}}', { phone: '+1', lastName: 'Byron' }), 'Byron')
  })

  test('a fallback stands in for an empty or unknown value, nothing otherwise', ({ assert }) => {
    assert.equal(renderTemplate('Hi {{name|there}}!', anonymous), 'Hi there!')
    assert.equal(renderTemplate('Hi {{name | dear customer }}!', anonymous), 'Hi dear customer!')
    assert.equal(renderTemplate('Hi {{name|there}}!', ada), 'Hi Ada Lovelace!')
    assert.equal(renderTemplate('Code {{company}}.', ada), 'Code .')
    assert.equal(renderTemplate('{{unknownField|-}}', ada), '-')
    assert.equal(renderTemplate('{{city|}}', anonymous), '')
  })

  test('text that only looks like a variable is left as written', ({ assert }) => {
    assert.equal(renderTemplate('{{ }} {{1}} {name} {{first name}}', ada), '{{ }} {{1}} {name} {{first name}}')
  })

  test('the variables a text uses, each once', ({ assert }) => {
    assert.deepEqual(templateVariables('Hi {{name}}, {{name|there}} {{city}} {{ city }}'), [
      { key: 'name', fallback: 'there' },
      { key: 'city', fallback: null },
    ])
    assert.deepEqual(templateVariables('no variables'), [])
  })

  test('as sent to someone with no data: each variable its fallback, the braces gone', ({ assert }) => {
    assert.equal(withFallbacksOnly('Hi {{firstName|there}}, see you in {{city}}.'), 'Hi there, see you in .')
    assert.equal(withFallbacksOnly('{{ }} stays'), '{{ }} stays')
  })
})
