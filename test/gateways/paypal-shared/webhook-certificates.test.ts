import { generateKeyPairSync, sign } from 'node:crypto'
import t from 'tap'
import { PaypalRestApi } from '../../../gateways/paypal-rest/index.ts'
import { PaypalRestConfig, PaypalWebhookVerifier } from '../../../gateways/paypal-shared/index.ts'
import { signedMessage } from '../../../gateways/paypal-shared/webhook-signature.ts'
import { issueCertificate } from '../../../simulators/paypal/runtime/certificate.ts'
import type { HttpRequestData } from '../../../plugins/core/index.ts'
import { CapturingLogger, ScriptedHttpClient, type Teardown } from '../paypal-rest/fixtures/recorders.ts'
import { startPaypal } from '../paypal-rest/fixtures/shop.ts'

/*
 * Offline verification trusts a signing certificate only if it chains to a configured trust
 * anchor and is valid at the time: the URL's host alone proves nothing (a certificate at a
 * paypal.com URL that nobody issued, or one long expired, is refused).
 */

const EVENT = '{"id":"WH-9","event_type":"PAYMENT.SALE.COMPLETED","resource":{"parent_payment":"PAYID-9"}}'
const YEAR_MS = 365 * 24 * 3600 * 1000

function delivery (headers: Record<string, string>): HttpRequestData {
  return { method: 'POST', uri: '/payment/notify/unsafe/paypal', query: {}, request: {}, content: EVENT, headers, clientIp: '127.0.0.1', userAgent: 'PayPal/AUHD-214.0' }
}

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 })

async function setup (t: Teardown, options: { trustAnchors?: string, now?: () => number } = {}) {
  const fixture = await startPaypal(t)
  const { id: webhookId } = fixture.paypal.simulator.webhooks.subscribe({ url: 'http://127.0.0.1:9/hooks', clientId: fixture.client.clientId })
  const http = new ScriptedHttpClient()
  t.teardown(() => http.close())
  const simulatorCa = await fixture.paypal.simulator.webhooks.certificateAuthorityPem()
  const config = new PaypalRestConfig({
    gatewayName: 'paypal',
    clientId: fixture.client.clientId,
    clientSecret: fixture.client.clientSecret,
    configPath: '',
    config: { 'service.EndPoint': fixture.endpoint, 'http.Retry': 0 },
    webhookId,
    webhookVerification: 'offline',
    webhookTrustAnchors: options.trustAnchors ?? simulatorCa
  })
  const verifier = new PaypalWebhookVerifier(config, new PaypalRestApi(config, http, new CapturingLogger()), http, { now: options.now })
  /** Headers signed by the simulator, at `time` (default now). */
  const signed = async (time?: number) => ({
    ...await fixture.paypal.simulator.webhooks.sign(EVENT, { webhookId, transmissionTime: time === undefined ? undefined : new Date(time).toISOString() })
  })
  /** A delivery signed with our own key, its certificate (`pem`) served at a paypal.com URL. */
  let forgeries = 0
  const forged = async (privateKey: ReturnType<typeof keyPair>['privateKey'], pem: string) => {
    const headers = await signed()
    // A URL of its own each: certificates are cached by URL.
    const certUrl = `https://api.paypal.com/v1/notifications/certs/CERT-forged-${++forgeries}`
    http.script = (request) => request.url === certUrl ? { statusCode: 200, headers: {}, body: pem } : undefined
    const message = signedMessage(headers['paypal-transmission-id'], headers['paypal-transmission-time'], webhookId, EVENT)
    return { ...headers, 'paypal-cert-url': certUrl, 'paypal-transmission-sig': sign('sha256', Buffer.from(message), privateKey).toString('base64') }
  }
  return { verifier, signed, forged, simulatorCa, paypal: fixture.paypal }
}

t.test('the simulator\'s certificate is issued by its CA: trusted with that CA as anchor, not with Node\'s bundled roots', async (t) => {
  const trusting = await setup(t)
  t.equal(await trusting.verifier.verify(delivery(await trusting.signed())), true)
  const defaults = await setup(t, { trustAnchors: '' })
  t.equal(await defaults.verifier.verify(delivery(await defaults.signed())), false, 'no public CA issued it')
})

t.test('a self-signed certificate, or one from a foreign CA, is refused even at a paypal.com URL', async (t) => {
  const { verifier, forged } = await setup(t)
  const own = keyPair()
  const selfSigned = issueCertificate({ publicKey: own.publicKey, commonName: 'CERT-forged', issuerName: 'PayPal Simulator Root CA', issuerKey: own.privateKey, notBefore: new Date(Date.now() - 1000) })
  t.equal(await verifier.verify(delivery(await forged(own.privateKey, selfSigned))), false, 'self-signed, under the CA\'s very name')

  const foreignCa = keyPair()
  const foreignCaPem = issueCertificate({ publicKey: foreignCa.publicKey, commonName: 'PayPal Simulator Root CA', issuerName: 'PayPal Simulator Root CA', issuerKey: foreignCa.privateKey, notBefore: new Date(Date.now() - 1000), ca: true })
  const issued = issueCertificate({ publicKey: own.publicKey, commonName: 'CERT-forged', issuerName: 'PayPal Simulator Root CA', issuerKey: foreignCa.privateKey, notBefore: new Date(Date.now() - 1000) })
  t.equal(await verifier.verify(delivery(await forged(own.privateKey, issued + foreignCaPem))), false, 'a look-alike CA, bundled along, is no anchor')
})

t.test('a chain through an intermediate CA the certificate URL bundles is followed to the anchor', async (t) => {
  const root = keyPair()
  const intermediate = keyPair()
  const leaf = keyPair()
  const notBefore = new Date(Date.now() - 1000)
  const rootPem = issueCertificate({ publicKey: root.publicKey, commonName: 'Root', issuerName: 'Root', issuerKey: root.privateKey, notBefore, ca: true })
  const leafPem = issueCertificate({ publicKey: leaf.publicKey, commonName: 'CERT-forged', issuerName: 'Intermediate', issuerKey: intermediate.privateKey, notBefore })
  const { verifier, forged } = await setup(t, { trustAnchors: rootPem })
  const intermediateCa = issueCertificate({ publicKey: intermediate.publicKey, commonName: 'Intermediate', issuerName: 'Root', issuerKey: root.privateKey, notBefore, ca: true })
  t.equal(await verifier.verify(delivery(await forged(leaf.privateKey, leafPem + intermediateCa))), true, 'leaf → intermediate → anchor')
  t.equal(await verifier.verify(delivery(await forged(leaf.privateKey, leafPem))), false, 'without the intermediate, no chain')
  const notCa = issueCertificate({ publicKey: intermediate.publicKey, commonName: 'Intermediate', issuerName: 'Root', issuerKey: root.privateKey, notBefore })
  t.equal(await verifier.verify(delivery(await forged(leaf.privateKey, leafPem + notCa))), false, 'an intermediate that is no CA issues nothing')
  const expiredCa = issueCertificate({ publicKey: intermediate.publicKey, commonName: 'Intermediate', issuerName: 'Root', issuerKey: root.privateKey, notBefore: new Date(Date.now() - 2 * YEAR_MS), validityMs: YEAR_MS, ca: true })
  t.equal(await verifier.verify(delivery(await forged(leaf.privateKey, leafPem + expiredCa))), false, 'an expired intermediate breaks the chain')
})

t.test('a certificate outside its validity dates is refused: expired, or not valid yet', async (t) => {
  let now = 0
  const { verifier, signed } = await setup(t, { now: () => now })
  // After setup: the simulator's certificates are issued when its signing identity is first made.
  now = Date.now()
  t.equal(await verifier.verify(delivery(await signed())), true, 'valid now')
  now += 6 * YEAR_MS // the simulator's certificates are valid for 5 years
  t.equal(await verifier.verify(delivery(await signed(now))), false, 'expired, though downloaded and cached while it was valid')
  now = Date.now() - 3600_000
  t.equal(await verifier.verify(delivery(await signed(now))), false, 'not valid yet')
})
