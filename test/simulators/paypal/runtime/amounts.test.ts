import t from 'tap'
import {
  AMOUNT_FORMAT_ISSUE, amountIssue, formatMinorUnits, isPaypalCurrency, NO_DECIMALS_ISSUE, normaliseAmount, toMinorUnits
} from '../../../../simulators/paypal/runtime/amounts.ts'

t.test('amounts PayPal accepts', async (t) => {
  for (const [value, currency] of [['7', 'USD'], ['7.5', 'EUR'], ['1234567.89', 'USD'], ['500', 'JPY'], ['1234567', 'HUF'], ['0.01', 'GBP']]) {
    t.equal(amountIssue(value, currency as string), undefined, `${value} ${currency}`)
  }
  t.equal(amountIssue('-1.00', 'USD', true), undefined, 'discounts may be negative')
})

t.test('amounts PayPal refuses', async (t) => {
  t.equal(amountIssue(7, 'USD'), AMOUNT_FORMAT_ISSUE, 'a JSON number, not a string')
  t.equal(amountIssue('12345678.00', 'USD'), AMOUNT_FORMAT_ISSUE, 'longer than 10 characters')
  t.equal(amountIssue('12345678', 'USD'), AMOUNT_FORMAT_ISSUE, 'more than 7 integer digits')
  t.equal(amountIssue('1.234', 'USD'), AMOUNT_FORMAT_ISSUE, 'three decimals')
  t.equal(amountIssue('1,00', 'EUR'), AMOUNT_FORMAT_ISSUE, 'comma as decimal separator')
  t.equal(amountIssue('-1.00', 'USD'), AMOUNT_FORMAT_ISSUE, 'negative where not a discount')
  t.equal(amountIssue('500.00', 'JPY'), NO_DECIMALS_ISSUE, 'JPY has no decimals')
  t.equal(amountIssue('1.5', 'TWD'), NO_DECIMALS_ISSUE, 'TWD has no decimals')
  t.equal(amountIssue('abc', 'HUF'), AMOUNT_FORMAT_ISSUE, 'HUF garbage')
  for (const [value, currency] of [['12345678', 'JPY'], ['123456789', 'HUF'], ['1234567890', 'TWD']]) {
    t.equal(amountIssue(value, currency as string), AMOUNT_FORMAT_ISSUE, `${value} ${currency}: more than 7 digits, whatever the currency`)
  }
})

t.test('normalisation and minor units', async (t) => {
  t.equal(normaliseAmount('7', 'USD'), '7.00')
  t.equal(normaliseAmount('7.5', 'USD'), '7.50')
  t.equal(normaliseAmount('500', 'JPY'), '500')
  t.equal(normaliseAmount('-1', 'USD'), '-1.00')
  t.equal(toMinorUnits('19.99', 'EUR'), 1999)
  t.equal(toMinorUnits('-0.5', 'EUR'), -50)
  t.equal(formatMinorUnits(5, 'USD'), '0.05')
  t.equal(formatMinorUnits(0, 'JPY'), '0')
  t.ok(isPaypalCurrency('EUR'))
  t.notOk(isPaypalCurrency('XXX'))
  t.notOk(isPaypalCurrency(undefined))
})
