import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import t from 'tap'
import { selfSignedCertificate } from '../../../../gateways/paypal-rest/simulator/certificate.ts'

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
