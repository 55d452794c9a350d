import t from 'tap'
import { PAYPAL_ZERO_DECIMAL_CURRENCIES, fromPaypalAmount, toPaypalAmount } from '../../../gateways/paypal-shared/index.ts'

t.test('minor units become PayPal\'s amount strings with the currency\'s exponent', async (t) => {
  t.equal(toPaypalAmount(1999, 'EUR'), '19.99')
  t.equal(toPaypalAmount(200, 'eur'), '2.00', 'codes are case-insensitive; never "2" as Payum\'s /100 gave')
  t.equal(toPaypalAmount(0, 'USD'), '0.00')
  t.equal(toPaypalAmount(500, 'JPY'), '500', 'JPY has no decimals: never "5"')
})

t.test('HUF and TWD: PayPal takes whole amounts only, though ISO 4217 gives them two decimals', async (t) => {
  t.same([...PAYPAL_ZERO_DECIMAL_CURRENCIES].sort(), ['HUF', 'JPY', 'TWD'])
  t.equal(toPaypalAmount(150000, 'HUF'), '1500')
  t.equal(toPaypalAmount(100, 'TWD'), '1')
  t.throws(() => toPaypalAmount(150050, 'HUF'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', statusCode: 400, message: /150050 HUF \(PayPal accepts whole HUF amounts only\)/ })
  t.throws(() => toPaypalAmount(1, 'TWD'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
})

t.test('amounts that are no minor units, and unknown currencies, are coded errors', async (t) => {
  t.throws(() => toPaypalAmount(-1, 'USD'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.throws(() => toPaypalAmount(1.5, 'USD'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.throws(() => toPaypalAmount(100, 'XQQ'), { code: 'PAYWIRE_ERR_UNKNOWN_CURRENCY' })
})

t.test('PayPal\'s amount strings back to minor units', async (t) => {
  t.equal(fromPaypalAmount('19.99', 'EUR'), 1999)
  t.equal(fromPaypalAmount('7', 'USD'), 700, 'PayPal accepts "7" for 7.00')
  t.equal(fromPaypalAmount('500', 'JPY'), 500)
  t.equal(fromPaypalAmount('1500', 'HUF'), 150000)
  t.throws(() => fromPaypalAmount('1.999', 'USD'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
})
