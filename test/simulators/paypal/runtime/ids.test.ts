import t from 'tap'
import * as ids from '../../../../simulators/paypal/runtime/ids.ts'

t.test('ids have PayPal shapes', async (t) => {
  t.match(ids.newPaymentId(), /^PAYID-[A-Z0-9]{24}$/)
  t.match(ids.newExpressCheckoutToken(), /^EC-[A-Z0-9]{17}$/)
  t.match(ids.newTransactionId(), /^[A-Z0-9]{17}$/)
  t.match(ids.newPayerId(), /^[A-Z0-9]{13}$/)
  t.match(ids.newWebhookId(), /^[A-Z0-9]{17}$/)
  t.match(ids.newAppId(), /^APP-[A-Z0-9]{17}$/)
  t.match(ids.newDebugId(), /^[0-9a-f]{13}$/)
  t.match(ids.newWebhookEventId(), /^WH-[A-Z0-9]{17}-[A-Z0-9]{17}$/)
  t.match(ids.newTransmissionId(), /^[0-9a-f]{8}-[0-9a-f]{4}-/)
  t.match(ids.newCertificateId(), /^CERT-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/)
  t.match(ids.newAccessToken(), /^A21AA[\w-]{92}$/)
  t.match(ids.newNonceSuffix(), /^[\w-]{43}$/)
  t.not(ids.newPaymentId(), ids.newPaymentId(), 'random')
})
