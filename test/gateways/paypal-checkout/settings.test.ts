import t from 'tap'
import { CheckoutSettings, clip, paypalStatus, checkoutAmounts } from '../../../gateways/paypal-checkout/index.ts'
import { startCheckoutShop, startJourney } from './fixtures/shop.ts'

t.test('experience context: defaults and options; bad options are coded errors naming the option', async (t) => {
  const plain = new CheckoutSettings('pp', { brandName: '', locale: '', shippingPreference: '' })
  t.same(plain.experienceContext('https://r', 'https://c'), { return_url: 'https://r', cancel_url: 'https://c', shipping_preference: 'NO_SHIPPING', user_action: 'PAY_NOW' })
  t.throws(() => new CheckoutSettings('pp', { brandName: 'x'.repeat(128), locale: '', shippingPreference: '' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /pp\.brand_name/ })
  t.throws(() => new CheckoutSettings('pp', { brandName: 7, locale: '', shippingPreference: '' }), { code: 'PAYWIRE_ERR_INVALID_OPTION' })
  t.throws(() => new CheckoutSettings('pp', { brandName: '', locale: 'english', shippingPreference: '' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /pp\.locale/ })
  t.throws(() => new CheckoutSettings('pp', { brandName: '', locale: '', shippingPreference: 'SHIP' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /GET_FROM_FILE, NO_SHIPPING, SET_PROVIDED_ADDRESS/ })
})

t.test('a gateway with a bad option fails its first payment with the coded error, before any PayPal call', async (t) => {
  const shop = await startCheckoutShop(t, { gateway: { shipping_preference: 'SHIP' } })
  await t.rejects(startJourney(shop), /capture answered 500/)
  t.equal(shop.paypal.simulator.orders.counters().ordersCreated, 0)
})

t.test('texts are cut on code points: an emoji at the limit is dropped whole, never split', async (t) => {
  t.equal(clip('short'), 'short')
  const cut = clip(`${'a'.repeat(126)}☕🍰x`)
  t.equal([...cut].length, 127)
  t.ok(cut.endsWith('☕'))
  t.equal(clip(`${'a'.repeat(126)}🍰🍰`), `${'a'.repeat(126)}🍰`)
})

t.test('status and amounts from records alone (the table in the README)', async (t) => {
  const completed = (payments: Record<string, unknown>) => ({ status: 'COMPLETED', purchase_units: [{ payments }] })
  t.equal(paypalStatus({}), 'new')
  t.equal(paypalStatus({ status: 'SAVED' }), 'pending')
  t.equal(paypalStatus({ status: 'VOIDED' }), 'canceled')
  t.equal(paypalStatus({ status: 'SOMETHING_NEW' }), 'unknown')
  t.equal(paypalStatus({ status: 'COMPLETED' }), 'unknown')
  t.equal(paypalStatus({ status: 'COMPLETED', paywire_state: 'expired' }), 'expired')
  t.equal(paypalStatus(completed({ captures: [{ status: 'FAILED' }] })), 'failed')
  t.equal(paypalStatus(completed({ authorizations: [{ status: 'DENIED' }] })), 'failed')
  t.equal(paypalStatus(completed({ authorizations: [{ status: 'PENDING' }] })), 'pending')
  const money = { value: '10.00', currency_code: 'USD' }
  t.same(checkoutAmounts(completed({
    captures: [{ id: 'C1', status: 'PARTIALLY_REFUNDED', amount: money }, { id: 'C2', status: 'DECLINED', amount: money }],
    refunds: [{ id: 'R1', status: 'COMPLETED', amount: { value: '2.00', currency_code: 'USD' } }, { id: 'R2', status: 'FAILED', amount: money }]
  })), { captured: 1000, refunded: 200, reversed: 0 })
  t.equal(checkoutAmounts({ status: 'CREATED' }), undefined)
})
