import { test } from '@japa/runner'
import { applyTextOptions } from '#modules/devices/services/text_options'
import { countSegments } from '#core/sms/segment_counter'

const strip = { stripDiacritics: true, trimWhitespace: false, uppercase: false }

test.group('Text options', () => {
  test('stripping removes accents GSM 7-bit lacks, stroked letters included, and keeps those it has', ({ assert }) => {
    assert.equal(applyTextOptions('Łódź, Gdańsk, Kraków, Đakovo, ħ, ı', strip), 'Lodz, Gdansk, Krakow, Dakovo, h, i')
    assert.equal(applyTextOptions('Café crème, Ça va, Müller, Ørsted, ê', strip), 'Café crème, Ça va, Müller, Ørsted, e')
    const stripped = applyTextOptions('Zażółć gęślą jaźń', strip)
    assert.equal(stripped, 'Zazolc gesla jazn')
    assert.equal(countSegments(stripped).encoding, 'gsm7')
  })

  test('uppercase comes first, so an uppercase accent outside GSM is stripped too; whitespace folds', ({ assert }) => {
    assert.equal(applyTextOptions('  Héllo   wörld  \n\n\n ça  ', { stripDiacritics: true, trimWhitespace: true, uppercase: true }), 'HÉLLO WÖRLD\n\nÇA')
    assert.equal(applyTextOptions('è', { stripDiacritics: true, trimWhitespace: false, uppercase: true }), 'E')
  })
})
