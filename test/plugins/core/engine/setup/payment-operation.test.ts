import t from 'tap'
import {
  PAYMENT_OPERATIONS, Payment, PaywireBuilder, Refund, Sync, readPaymentState, readPaymentStatus, runPaymentOperation
} from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'

/*
 * The back office's one way to run an operation on a stored payment (GraphQL's mutations and
 * the operator console use it; their own tests cover the paths they answer). Here: what a
 * payment whose gateway is gone reads as, and the errors each front end is asked to make.
 */

const paywire = new PaywireBuilder()
  .addGatewayFactory('offline', new OfflineGatewayFactory())
  .addGateway('cash', { factory: 'offline' })
  .getPaywire()
t.teardown(() => paywire.close())

const errors = {
  notFound: () => new Error('not found here'),
  notSupported: (gateway: string, request: string) => new Error(`${gateway} cannot ${request}`)
}

async function stored (gatewayName: string): Promise<Payment> {
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  Object.assign(payment, { gatewayName, number: `N-${gatewayName}`, totalAmount: 100, currencyCode: 'EUR' })
  await storage.update(payment)
  return payment
}

t.test('a payment whose gateway is gone: status unknown, no state, the operation refused with the gateway named', async (t) => {
  const orphan = await stored('gone')
  t.same(await readPaymentStatus(paywire, orphan), { status: 'unknown' })
  t.equal(readPaymentState(paywire, orphan), undefined)
  const seen: unknown[] = []
  await t.rejects(runPaymentOperation(paywire, orphan.id as string, PAYMENT_OPERATIONS.refund, (model) => new Refund(model), {
    ...errors,
    describe: (error, context) => { seen.push(context); return error }
  }), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY' })
  t.same(seen, [{ gateway: 'gone' }])
  // The claim was released: the next operation on it is not told the payment is busy.
  await t.rejects(runPaymentOperation(paywire, orphan.id as string, PAYMENT_OPERATIONS.refund, (model) => new Refund(model), errors),
    { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY' })
})

t.test('the front end\'s own errors: not found, not supported (without describe: as made)', async (t) => {
  await t.rejects(runPaymentOperation(paywire, 'no-such-id', PAYMENT_OPERATIONS.sync, (model) => new Sync(model), errors), { message: 'not found here' })
  const cash = await stored('cash')
  // The offline gateway has no Sync.
  await t.rejects(runPaymentOperation(paywire, cash.id as string, PAYMENT_OPERATIONS.sync, (model) => new Sync(model), errors), { message: 'cash cannot Sync' })
})
