import t from 'tap'
import {
  AuthorizeAction, CancelAction, CaptureAction, ConvertPaymentAction, ConvertPayoutAction, OFFLINE_FACTORY_NAME, OfflineField,
  OfflineGatewayFactory, OfflineStatus, PayoutAction, RefundAction, StatusAction
} from '../../../gateways/offline/index.ts'
import { CoreGatewayFactory, PaywireBuilder } from '../../../plugins/core/engine/index.ts'

t.test('the offline factory adds its actions after the core ones and needs no options', async (t) => {
  const factory = new OfflineGatewayFactory()
  t.equal(OFFLINE_FACTORY_NAME, 'offline')
  t.ok(factory instanceof CoreGatewayFactory)
  t.same(factory.getActions(), [
    ...new CoreGatewayFactory().getActions(),
    CaptureAction, AuthorizeAction, PayoutAction, RefundAction, CancelAction, StatusAction, ConvertPaymentAction, ConvertPayoutAction
  ])
  t.same(Object.keys(factory.configureContainer()).filter((key) => key.startsWith('offline.')), [])
  const paywire = new PaywireBuilder().addGatewayFactory('offline', factory).addGateway('cash', { factory: 'offline' }).getPaywire()
  t.teardown(() => paywire.close())
  t.same(paywire.getGateway('cash').actions.slice(-8).map((action) => action.constructor), factory.getActions().slice(-8))
})

t.test('the details fields and statuses are named constants', async (t) => {
  t.same(OfflineField, { PAID: 'paid', PAYOUT: 'payout', STATUS: 'status', REFUNDED_AMOUNT: 'refunded_amount' })
  t.same(OfflineStatus, {
    PENDING: 'pending', AUTHORIZED: 'authorized', CAPTURED: 'captured', PAYEDOUT: 'payedout', REFUNDED: 'refunded', CANCELED: 'canceled'
  })
})
