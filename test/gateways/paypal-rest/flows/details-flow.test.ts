import t from 'tap'
import { Amount, Payer, PaymentDetails, RedirectUrls, Transaction } from '../../../../gateways/paypal-rest/index.ts'
import { comeBack, decideOnApprovalPage, pay, readDone, saleOf, startJourney, startShop, type Shop } from '../fixtures/shop.ts'

async function storedDetails (shop: Shop, id: string): Promise<PaymentDetails> {
  const details = await shop.app.paywire.getStorage(PaymentDetails).find(id)
  if (details === null) throw new Error(`no details ${id}`)
  return details
}

t.test('the second procedure, exactly as the README writes it: shop → capture → approval page → capture → done reads captured', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop, {}, 'details')
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  t.ok(returnUrl.startsWith(`${journey.captureUrl}?`))
  const done = await comeBack(returnUrl)
  t.match(done, { status: 'captured', message: 'Your payment was received.' })
  t.notOk('details' in done.payment, 'PayPal\'s record (payer, ids) is not shown to whoever holds the done link')

  const details = await storedDetails(shop, journey.id)
  t.equal(details.idStorage, journey.id, 'the storage id stays in idStorage')
  t.equal(details.id, journey.paymentId, 'PayPal\'s id lives in the record')
  t.ok(details.payer instanceof Payer && details.redirect_urls instanceof RedirectUrls, 'nested objects come back as their classes')
  t.ok(details.transactions[0] instanceof Transaction && details.transactions[0].amount instanceof Amount)
  t.match(details.transactions[0], { amount: { total: '19.99', currency: 'EUR' }, description: 'Mug' })
  t.equal(saleOf(details).state, 'completed')
  t.match(shop.paypal.simulator.payment(journey.paymentId), { state: 'approved', transactions: [{ amount: { total: '19.99', currency: 'EUR' }, description: 'Mug' }] })
  t.match(shop.paypal.simulator.counters(), { paymentsCreated: 1, paymentsExecuted: 1 })
})

t.test('the REST details record: cancel on PayPal\'s page reads canceled', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop, {}, 'details')
  t.equal((await comeBack(await decideOnApprovalPage(journey.approvalUrl, 'cancel'))).status, 'canceled')
  t.equal((await storedDetails(shop, journey.id)).state, 'cancelled')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 0)
})

t.test('the REST details record: a webhook finds it by PayPal\'s id and moves it forward', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop, {}, 'approve_pending', 'details')
  t.equal(done.status, 'pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.settleSale(saleOf(await storedDetails(shop, id)).id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'captured')
  t.equal(saleOf(await storedDetails(shop, id)).state, 'completed')
})
