import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import t from 'tap'
import { issueCertificate, selfSignedCertificate } from '../../../../simulators/paypal/runtime/certificate.ts'
import { startPaypal } from '../../../gateways/paypal-rest/fixtures/shop.ts'

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })

t.test('a self-signed certificate that X.509 parsers accept', async (t) => {
  const pem = selfSignedCertificate(privateKey, publicKey, 'CERT-0a1b2c3d', new Date(Date.UTC(2024, 4, 1)))
  t.match(pem, /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END CERTIFICATE-----\n$/)
  const certificate = new X509Certificate(pem)
  t.equal(certificate.subject, 'C=US\nO=PayPal Simulator\nCN=CERT-0a1b2c3d')
  t.equal(certificate.issuer, certificate.subject, 'self-signed')
  t.ok(certificate.verify(publicKey), 'signed by its own key')
  t.ok(certificate.publicKey.equals(publicKey))
  t.equal(new Date(certificate.validFrom).toISOString(), '2024-05-01T00:00:00.000Z')
  t.ok(new Date(certificate.validTo).getTime() > Date.UTC(2029, 0, 1), 'valid for years')
})

t.test('dates from 2050 use GeneralizedTime', async (t) => {
  const certificate = new X509Certificate(selfSignedCertificate(privateKey, publicKey, 'CERT-late', new Date(Date.UTC(2060, 0, 1))))
  t.equal(new Date(certificate.validFrom).toISOString(), '2060-01-01T00:00:00.000Z')
})

t.test('a CA certificate and one it issues: checkIssued and the CA\'s signature hold, the validity is as asked', async (t) => {
  const ca = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const notBefore = new Date(Date.UTC(2025, 0, 1))
  const caCertificate = new X509Certificate(issueCertificate({ publicKey: ca.publicKey, commonName: 'Root', issuerName: 'Root', issuerKey: ca.privateKey, notBefore, ca: true }))
  const leaf = new X509Certificate(issueCertificate({ publicKey, commonName: 'CERT-1', issuerName: 'Root', issuerKey: ca.privateKey, notBefore, validityMs: 3600_000 }))
  t.equal(caCertificate.ca, true, 'basicConstraints cA')
  t.equal(leaf.ca, false)
  t.ok(leaf.checkIssued(caCertificate))
  t.ok(leaf.verify(ca.publicKey))
  t.notOk(leaf.verify(publicKey), 'not self-signed')
  t.equal(new Date(leaf.validTo).toISOString(), '2025-01-01T01:00:00.000Z')
})

t.test('the simulator signs with a certificate its own CA issued, and serves the certificate (not the CA) at the certificate URL', async (t) => {
  const { paypal } = await startPaypal(t)
  const ca = new X509Certificate(await paypal.simulator.webhooks.certificateAuthorityPem())
  const served = await fetch(paypal.simulator.webhooks.certificateUrl())
  const leaf = new X509Certificate(await served.text())
  t.equal(ca.ca, true)
  t.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'issued by the CA')
  t.not(leaf.fingerprint256, ca.fingerprint256)
  t.equal(leaf.fingerprint256, new X509Certificate(await paypal.simulator.webhooks.certificatePem()).fingerprint256)
})
