import t from 'tap'
import {
  AuthorizeAction, CancelAction, CaptureAction, ConvertPaymentAction, ConvertPayoutAction, OFFLINE_FACTORY_NAME, OfflineField,
  OfflineGatewayFactory, OfflineStatus, PayoutAction, RefundAction, StatusAction
} from '../../../gateways/offline/index.ts'
import { CoreGatewayFactory, PaywireBuilder, StatusFromReaderAction } from '../../../plugins/core/engine/index.ts'
import { OfflineStateReader } from '../../../gateways/offline/state-reader.ts'

t.test('the offline factory adds its actions after the core ones and needs no options', async (t) => {
  const factory = new OfflineGatewayFactory()
  t.equal(OFFLINE_FACTORY_NAME, 'offline')
  t.ok(factory instanceof CoreGatewayFactory)
  t.same(factory.getActions(), [
    ...new CoreGatewayFactory().getActions(),
    CaptureAction, AuthorizeAction, PayoutAction, RefundAction, CancelAction, ConvertPaymentAction, ConvertPayoutAction
  ])
  t.same(Object.keys(factory.configureContainer()).filter((key) => key.startsWith('offline.')), [])
  const paywire = new PaywireBuilder().addGatewayFactory('offline', factory).addGateway('cash', { factory: 'offline' }).getPaywire()
  t.teardown(() => paywire.close())
  const actions = paywire.getGateway('cash').actions
  t.same(actions.slice(-8, -1).map((action) => action.constructor), factory.getActions().slice(-7))
  // Statuses come from the registered reader, answered last (the one statement of them).
  const last = actions.at(-1) as StatusFromReaderAction
  t.ok(last instanceof StatusFromReaderAction)
  t.ok(last.reader instanceof OfflineStateReader)
  t.ok(new StatusAction() instanceof StatusFromReaderAction, 'StatusAction stays for gateways assembled by hand')
})

t.test('the details fields and statuses are named constants', async (t) => {
  t.same(OfflineField, { PAID: 'paid', PAYOUT: 'payout', STATUS: 'status', REFUNDED_AMOUNT: 'refunded_amount' })
  t.same(OfflineStatus, {
    PENDING: 'pending', AUTHORIZED: 'authorized', CAPTURED: 'captured', PAYEDOUT: 'payedout', REFUNDED: 'refunded', CANCELED: 'canceled'
  })
})
