import t from 'tap'
import {
  assertMinorUnits, findCurrency, formatMinorUnits, getCurrency, isMinorUnits, parseToMinorUnits
} from '../../../../plugins/core/engine/index.ts'

t.test('currencies by ISO 4217 alphabetic or numeric code, with their exponent', async (t) => {
  t.match(getCurrency('EUR'), { alpha3: 'EUR', numeric: '978', name: 'Euro', exp: 2 })
  t.ok(getCurrency('EUR').countries.includes('Germany'))
  t.equal(getCurrency(978).alpha3, 'EUR')
  t.equal(getCurrency('978').alpha3, 'EUR')
  t.equal(getCurrency(' eur ').alpha3, 'EUR')
  t.equal(getCurrency('jpy').exp, 0)
  t.equal(getCurrency('BHD').exp, 3)
  t.equal(getCurrency(8).alpha3, 'ALL', 'short numeric codes are zero-padded')
  t.equal(findCurrency('XYZ'), undefined)
  t.equal(findCurrency(''), undefined)
  t.equal(findCurrency(0), undefined)
})

t.test('an unknown currency is a coded 400 error that echoes only a short prefix', async (t) => {
  t.throws(() => getCurrency('XYZ'), { code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY', statusCode: 400, message: /^Unknown currency "XYZ"/ })
  t.throws(() => getCurrency('X'.repeat(100)), { message: `Unknown currency "${'X'.repeat(16)}": use an ISO 4217 alphabetic (EUR) or numeric (978) code.` })
})

t.test('a looked-up currency is a copy: changing it does not change later lookups', async (t) => {
  const first = getCurrency('EUR')
  first.countries.length = 0
  first.name = 'changed'
  t.ok(getCurrency('EUR').countries.includes('Germany'))
  t.equal(getCurrency('EUR').name, 'Euro')
})

t.test('formatMinorUnits uses the currency\'s exponent', async (t) => {
  t.equal(formatMinorUnits(1234, 'EUR'), '12.34')
  t.equal(formatMinorUnits(5, 'EUR'), '0.05')
  t.equal(formatMinorUnits(0, 'EUR'), '0.00')
  t.equal(formatMinorUnits(500, 'JPY'), '500')
  t.equal(formatMinorUnits(1234, 'BHD'), '1.234')
  t.equal(formatMinorUnits(7, 'BHD'), '0.007')
  t.equal(formatMinorUnits(Number.MAX_SAFE_INTEGER, 'EUR'), '90071992547409.91')
})

t.test('parseToMinorUnits reads decimals without floating point', async (t) => {
  t.equal(parseToMinorUnits('12.34', 'EUR'), 1234)
  t.equal(parseToMinorUnits('7', 'EUR'), 700)
  t.equal(parseToMinorUnits('7.5', 'EUR'), 750)
  t.equal(parseToMinorUnits('7.', 'EUR'), 700)
  t.equal(parseToMinorUnits(' 0.10 ', 'EUR'), 10)
  t.equal(parseToMinorUnits('0.29', 'EUR'), 29, 'no 0.29 * 100 = 28.999… rounding')
  t.equal(parseToMinorUnits('500', 'JPY'), 500)
  t.equal(parseToMinorUnits('1.234', 'BHD'), 1234)
  t.equal(parseToMinorUnits('1.2', 'BHD'), 1200)
})

t.test('parseToMinorUnits refuses more decimals than the currency has, negatives and garbage', async (t) => {
  for (const [decimal, currency] of [['12.345', 'EUR'], ['1.5', 'JPY'], ['1.2345', 'BHD'], ['-1', 'EUR'], ['1e3', 'EUR'], ['', 'EUR'], ['.5', 'EUR'], ['1,50', 'EUR'], ['abc', 'EUR']]) {
    t.throws(() => parseToMinorUnits(decimal as string, currency as string), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', statusCode: 400 }, `${decimal} ${currency}`)
  }
  t.throws(() => parseToMinorUnits('90071992547409.93', 'EUR'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' }, 'beyond the safe integers')
  t.throws(() => parseToMinorUnits('1', 'XYZ'), { code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY' })
})

t.test('amounts are non-negative safe integers', async (t) => {
  t.ok(isMinorUnits(0))
  t.ok(isMinorUnits(Number.MAX_SAFE_INTEGER))
  for (const amount of [-1, 1.5, Number.NaN, Infinity, 2 ** 53, '100', null, undefined]) {
    t.notOk(isMinorUnits(amount), String(amount))
    t.throws(() => assertMinorUnits(amount), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', statusCode: 400 })
  }
  t.throws(() => formatMinorUnits(-5, 'EUR'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', message: /^Invalid amount -5:/ })
  t.throws(() => formatMinorUnits(1.5, 'EUR'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.throws(() => formatMinorUnits(1, 'XYZ'), { code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY' })
})
