import t from 'tap'
import {
  Amount, PAYMENT_DETAILS_ID_PROPERTY, Payer, PaymentDetails, RedirectUrls, Transaction
} from '../../../../gateways/paypal-rest/index.ts'
import { MemoryStorage } from '../../../../plugins/core/index.ts'

t.test('a new record is a PayPal wallet sale waiting for its fields', async (t) => {
  const details = new PaymentDetails()
  t.equal(details.intent, 'sale')
  t.same(details.payer, { payment_method: 'paypal' })
  t.same(details.redirect_urls, { return_url: '', cancel_url: '' })
  t.same(details.transactions, [])
  t.equal(details.id, undefined)
  t.equal(details.state, undefined)
  t.same(new Transaction(), { amount: { currency: '', total: '' }, description: '' })
  t.same(new Transaction(new Amount('JPY', '500'), 'Tea'), { amount: { currency: 'JPY', total: '500' }, description: 'Tea' })
  t.same(new RedirectUrls('https://a', 'https://b'), { return_url: 'https://a', cancel_url: 'https://b' })
  t.same(new Payer('credit_card'), { payment_method: 'credit_card' })
})

t.test('its JSON is PayPal\'s request body, plus whatever PayPal and Paywire added', async (t) => {
  const details = new PaymentDetails()
  details.transactions = [new Transaction(new Amount('EUR', '19.99'), 'Mug')]
  details.id = 'PAYID-1'
  details.paywire_key = 'k'
  t.same(JSON.parse(JSON.stringify(details)), {
    intent: 'sale',
    payer: { payment_method: 'paypal' },
    redirect_urls: { return_url: '', cancel_url: '' },
    transactions: [{ amount: { currency: 'EUR', total: '19.99' }, description: 'Mug' }],
    id: 'PAYID-1',
    paywire_key: 'k'
  })
})

t.test('a storage round trip keeps the storage id in idStorage, PayPal\'s id in id, and the nested classes', async (t) => {
  const storage = new MemoryStorage(PaymentDetails, { idProperty: PAYMENT_DETAILS_ID_PROPERTY })
  const details = storage.create()
  details.redirect_urls = new RedirectUrls('https://shop/return', 'https://shop/return?cancelled=1')
  details.transactions = [new Transaction(new Amount('EUR', '1.00'), 'Pen')]
  await storage.update(details)
  t.type(details.idStorage, 'string')
  details.id = 'PAYID-2'
  details.state = 'created'
  await storage.update(details)

  const found = await storage.find(details.idStorage as string)
  t.ok(found instanceof PaymentDetails)
  t.equal(found?.idStorage, details.idStorage)
  t.equal(found?.id, 'PAYID-2')
  t.ok(found?.payer instanceof Payer)
  t.ok(found?.redirect_urls instanceof RedirectUrls)
  t.ok(found?.transactions[0] instanceof Transaction)
  t.ok(found?.transactions[0]?.amount instanceof Amount)
  t.same(found?.transactions[0], { amount: { currency: 'EUR', total: '1.00' }, description: 'Pen' })
  t.same((await storage.findBy({ id: 'PAYID-2' })).map((record) => record.idStorage), [details.idStorage])
})

t.test('fromJSON keeps defaults for what a record lacks and PayPal\'s extra fields as they are', async (t) => {
  const bare = PaymentDetails.fromJSON({ state: 'approved' })
  t.equal(bare.state, 'approved')
  t.ok(bare.payer instanceof Payer)
  t.same(bare.transactions, [])
  const paypals = PaymentDetails.fromJSON({ transactions: [{ related_resources: [{ sale: { id: 'S' } }] }], links: [{ rel: 'self' }] })
  t.ok(paypals.transactions[0]?.amount instanceof Amount, 'a transaction without amount gets an empty one')
  t.same((paypals.transactions[0] as Transaction & { related_resources?: unknown }).related_resources, [{ sale: { id: 'S' } }])
  t.same(paypals.links, [{ rel: 'self' }])
})
