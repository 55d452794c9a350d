import { randomBytes, X509Certificate } from 'node:crypto'
import { crc32 as zlibCrc32 } from 'node:zlib'
import t from 'tap'
import {
  createSigningIdentity, crc32, signedMessage, signWebhookBody, verifyWebhookSignature
} from '../../../../simulators/paypal/runtime/signatures.ts'

t.test('crc32 matches zlib / buffer-crc32 (paypal-wire §4.5)', async (t) => {
  t.equal(crc32('{"id":"WH-1"}'), 838965618)
  t.equal(crc32(Buffer.from('123456789')), 0xcbf43926, 'the CRC-32 check value')
  t.equal(crc32(''), 0)
  t.equal(signedMessage('tid', '2016-09-21T22:00:46Z', 'WEBHOOK1', '{"id":"WH-1"}'), 'tid|2016-09-21T22:00:46Z|WEBHOOK1|838965618')
})

t.test('crc32, written for the simulator, agrees with zlib on any bytes', async (t) => {
  for (let length = 0; length < 300; length += 7) {
    const bytes = randomBytes(length)
    t.equal(crc32(bytes), zlibCrc32(bytes), `${length} random bytes`)
  }
  t.equal(crc32('Zürich → 東京'), zlibCrc32(Buffer.from('Zürich → 東京', 'utf8')), 'a string is its UTF-8 bytes')
})

t.test('sign then verify with the identity certificate', async (t) => {
  const identity = await createSigningIdentity('CERT-11111111-22222222-33333333', Date.UTC(2024, 0, 1))
  const certificate = new X509Certificate(identity.certificatePem)
  t.match(certificate.subject, /CN=CERT-11111111-22222222-33333333/)
  const body = '{"id":"WH-1","event_type":"PAYMENT.SALE.COMPLETED"}'
  const headers = signWebhookBody(identity, 'http://127.0.0.1:9', Date.UTC(2024, 0, 2), body, { webhookId: 'WEBHOOK1' })
  t.equal(headers['paypal-auth-algo'], 'SHA256withRSA')
  t.equal(headers['paypal-cert-url'], 'http://127.0.0.1:9/v1/notifications/certs/CERT-11111111-22222222-33333333')
  t.equal(headers['paypal-transmission-time'], '2024-01-02T00:00:00Z')
  t.match(headers['paypal-transmission-id'], /^[0-9a-f-]{36}$/)

  const input = {
    authAlgo: headers['paypal-auth-algo'],
    certUrl: headers['paypal-cert-url'],
    transmissionId: headers['paypal-transmission-id'],
    transmissionSig: headers['paypal-transmission-sig'],
    transmissionTime: headers['paypal-transmission-time'],
    webhookId: 'WEBHOOK1',
    eventBodies: [body]
  }
  t.ok(verifyWebhookSignature(identity, input), 'verifies')
  t.ok(verifyWebhookSignature(identity, { ...input, certUrl: 'https://elsewhere.test/v1/notifications/certs/CERT-11111111-22222222-33333333' }), 'host does not matter')
  t.notOk(verifyWebhookSignature(identity, { ...input, eventBodies: [body.replace('WH-1', 'WH-2')] }), 'tampered body')
  t.notOk(verifyWebhookSignature(identity, { ...input, webhookId: 'WEBHOOK2' }), 'other webhook id')
  t.notOk(verifyWebhookSignature(identity, { ...input, authAlgo: 'SHA1withRSA' }), 'other algorithm')
  t.notOk(verifyWebhookSignature(identity, { ...input, certUrl: 'not a url' }), 'cert url not a URL')
  t.notOk(verifyWebhookSignature(identity, { ...input, certUrl: 'https://api.paypal.com/v1/notifications/certs/CERT-other' }), 'other certificate')

  const fixed = signWebhookBody(identity, 'http://x', 0, body, { webhookId: 'W', transmissionId: 'tid', transmissionTime: 'then' })
  t.equal(fixed['paypal-transmission-id'], 'tid')
  t.equal(fixed['paypal-transmission-time'], 'then')
})

t.test('one key pair per process, certificates per simulator; a second identity when asked, whose signatures do not verify', async (t) => {
  const first = await createSigningIdentity('CERT-1', Date.UTC(2024, 0, 1))
  const second = await createSigningIdentity('CERT-2', Date.UTC(2025, 0, 1))
  t.ok(first.publicKey.equals(second.publicKey), 'the same signing key')
  t.ok(new X509Certificate(first.certificateAuthorityPem).publicKey.equals(new X509Certificate(second.certificateAuthorityPem).publicKey), 'the same CA key')
  t.match(new X509Certificate(second.certificatePem), { subject: /CN=CERT-2/, validFrom: /2025/ }, 'its own certificate, its own dates')
  t.not(new X509Certificate(first.certificatePem).serialNumber, new X509Certificate(second.certificatePem).serialNumber)

  const other = await createSigningIdentity('CERT-1', Date.UTC(2024, 0, 1), { freshKeys: true })
  t.notOk(other.publicKey.equals(first.publicKey), 'fresh keys')
  t.notOk(new X509Certificate(other.certificatePem).verify(new X509Certificate(first.certificateAuthorityPem).publicKey), 'not signed by the shared CA')
  const body = '{"id":"WH-1"}'
  const headers = signWebhookBody(other, 'http://x', Date.UTC(2024, 0, 2), body, { webhookId: 'WEBHOOK1' })
  const input = {
    authAlgo: headers['paypal-auth-algo'],
    certUrl: headers['paypal-cert-url'],
    transmissionId: headers['paypal-transmission-id'],
    transmissionSig: headers['paypal-transmission-sig'],
    transmissionTime: headers['paypal-transmission-time'],
    webhookId: 'WEBHOOK1',
    eventBodies: [body]
  }
  t.ok(verifyWebhookSignature(other, input), 'verifies with its own key')
  t.notOk(verifyWebhookSignature(first, input), 'not with another key, under the same certificate id')
})
