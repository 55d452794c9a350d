import { createVerify } from 'node:crypto'
import t from 'tap'
import { crc32, signedMessage } from '../../../gateways/paypal-shared/webhook-signature.ts'
import { startPaypal } from '../paypal-rest/fixtures/shop.ts'

t.test('crc32 is CRC-32/IEEE as an unsigned integer, over the UTF-8 bytes', async (t) => {
  t.equal(crc32('{"id":"WH-1"}'), 838965618, 'the value PayPal\'s SDK computes')
  t.equal(crc32('123456789'), 0xcbf43926, 'the standard check value')
  t.equal(crc32(''), 0)
  t.equal(crc32('Zürich'), crc32(Buffer.from('Zürich', 'utf8')))
  t.not(crc32('Zürich'), crc32(Buffer.from('Zürich', 'latin1')), 'strings count as UTF-8')
})

t.test('the signed message: transmission id | time | webhook id | crc32 of the raw body', async (t) => {
  t.equal(signedMessage('d938e770', '2016-09-21T22:00:46Z', '9XL90610J3647323C', '{"id":"WH-1"}'), 'd938e770|2016-09-21T22:00:46Z|9XL90610J3647323C|838965618')
})

t.test('a delivery signed by the simulator verifies against its certificate with this message', async (t) => {
  const { paypal } = await startPaypal(t)
  const body = '{"id":"WH-2","event_type":"PAYMENT.SALE.COMPLETED"}'
  const headers = await paypal.simulator.webhooks.sign(body, { webhookId: 'WEBHOOK1' })
  const message = signedMessage(headers['paypal-transmission-id'], headers['paypal-transmission-time'], 'WEBHOOK1', body)
  const pem = await paypal.simulator.webhooks.certificatePem()
  t.ok(createVerify('RSA-SHA256').update(message).verify(pem, headers['paypal-transmission-sig'], 'base64'))
  const otherBody = signedMessage(headers['paypal-transmission-id'], headers['paypal-transmission-time'], 'WEBHOOK1', `${body} `)
  t.notOk(createVerify('RSA-SHA256').update(otherBody).verify(pem, headers['paypal-transmission-sig'], 'base64'))
})
