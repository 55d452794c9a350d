import t from 'tap'
import { Convert, Payment, type Paywire } from '../../../../plugins/core/index.ts'
import { engineSetup, preparePayment, reload, toApproval } from '../fixtures/paywire.ts'
import { GATEWAY } from '../fixtures/shop.ts'

async function convert (paywire: Paywire, fields: Partial<Payment>): Promise<unknown> {
  const payment = Object.assign(new Payment(), fields)
  const request = new Convert(payment, 'array', null)
  await paywire.getGateway(GATEWAY).execute(request)
  return request.result
}

t.test('a Payment becomes a PayPal wallet sale: one transaction, the amount formatted with the currency\'s exponent', async (t) => {
  const { paywire } = await engineSetup(t)
  t.same(await convert(paywire, { totalAmount: 1999, currencyCode: 'EUR', description: 'Mug', number: 'ORDER-1' }), {
    intent: 'sale',
    payer: { payment_method: 'paypal' },
    transactions: [{ amount: { total: '19.99', currency: 'EUR' }, description: 'Mug', invoice_number: 'ORDER-1' }]
  })
  t.same(await convert(paywire, { totalAmount: 500, currencyCode: 'jpy' }), {
    intent: 'sale', payer: { payment_method: 'paypal' }, transactions: [{ amount: { total: '500', currency: 'JPY' } }]
  }, 'no empty description or invoice number')
  t.match(await convert(paywire, { totalAmount: 150000, currencyCode: 'HUF' }), { transactions: [{ amount: { total: '1500', currency: 'HUF' } }] })
  await t.rejects(convert(paywire, { totalAmount: 150050, currencyCode: 'HUF' }), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
})

t.test('details the shop set itself win', async (t) => {
  const { paywire } = await engineSetup(t)
  const ownTransactions = [{ amount: { total: '10.00', currency: 'EUR', details: { subtotal: '9.00', shipping: '1.00' } }, custom: 'c-1' }]
  t.same(await convert(paywire, { totalAmount: 1000, currencyCode: 'EUR', details: { transactions: ownTransactions, note_to_payer: 'Thanks!' } }), {
    transactions: ownTransactions, note_to_payer: 'Thanks!', intent: 'sale', payer: { payment_method: 'paypal' }
  })
})

t.test('description and invoice number are cut to PayPal\'s 127 characters, and PayPal takes them', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire, { description: 'd'.repeat(200), number: 'n'.repeat(200) })
  await toApproval(setup.paywire, prepared.token)
  const { details } = await reload(setup.paywire, prepared.payment)
  t.match(setup.paypal.simulator.payment(details.id), { transactions: [{ description: 'd'.repeat(127), invoice_number: 'n'.repeat(127) }] })
})

t.test('only conversions to the details array', async (t) => {
  const { paywire } = await engineSetup(t)
  await t.rejects(paywire.getGateway(GATEWAY).execute(new Convert(new Payment(), 'json', null)), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' })
})

t.test('a description cut at 127 characters keeps an emoji whole: PayPal gets it, the payment is stored', async (t) => {
  const setup = await engineSetup(t)
  const description = `${'d'.repeat(126)}😀 and more`
  const number = `${'n'.repeat(120)}👨‍👩‍👧-42`
  const prepared = await preparePayment(setup.paywire, { description, number })
  await toApproval(setup.paywire, prepared.token)
  const { details } = await reload(setup.paywire, prepared.payment)
  t.match(details.transactions[0], { description: 'd'.repeat(126), invoice_number: 'n'.repeat(120) })
  t.match(setup.paypal.simulator.payment(details.id), { transactions: [{ description: 'd'.repeat(126), invoice_number: 'n'.repeat(120) }] })
})
