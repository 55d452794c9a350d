import { generateKeyPairSync, X509Certificate } from 'node:crypto'
import t from 'tap'
import { bundledRootCertificates, chainsToAnchor, parseCertificates } from '../../../gateways/paypal-shared/certificate-chain.ts'
import { issueCertificate } from '../../../simulators/paypal/runtime/certificate.ts'

const notBefore = new Date(Date.now() - 60_000)
const now = Date.now()

/** root → ca1 → … → ca<depth> → leaf: [leaf, ca<depth>, …, ca1] and the root. */
function chainOf (depth: number): { chain: X509Certificate[], root: X509Certificate } {
  const keys = Array.from({ length: depth + 2 }, () => generateKeyPairSync('rsa', { modulusLength: 1024 }))
  const names = keys.map((_, index) => index === 0 ? 'Root' : index === depth + 1 ? 'Leaf' : `CA ${index}`)
  const pems = keys.map((key, index) => issueCertificate({
    publicKey: key.publicKey,
    commonName: names[index] as string,
    issuerName: names[Math.max(0, index - 1)] as string,
    issuerKey: keys[Math.max(0, index - 1)]!.privateKey,
    notBefore,
    ca: index <= depth
  }))
  const certificates = pems.map((pem) => new X509Certificate(pem))
  return { root: certificates[0] as X509Certificate, chain: certificates.slice(1).reverse() }
}

t.test('chains through up to 4 intermediates; a longer one is refused', async (t) => {
  const four = chainOf(4)
  t.equal(chainsToAnchor(four.chain, [four.root], now), true)
  const five = chainOf(5)
  t.equal(chainsToAnchor(five.chain, [five.root], now), false)
  t.equal(chainsToAnchor([], [five.root], now), false, 'no certificate at all')
})

t.test('an anchor outside its own validity anchors nothing', async (t) => {
  const { chain, root } = chainOf(0)
  t.equal(chainsToAnchor(chain, [root], now), true)
  t.equal(chainsToAnchor(chain, [root], Date.parse(root.validTo) + 1000), false)
})

t.test('PEM bundles: every certificate in order; none, or a broken one, is undefined', async (t) => {
  const { chain } = chainOf(1)
  const bundle = chain.map((certificate) => certificate.toString()).join('\n')
  t.same(parseCertificates(`junk before\n${bundle}\njunk after`)?.map((certificate) => certificate.subject), chain.map((certificate) => certificate.subject))
  t.equal(parseCertificates('no certificate'), undefined)
  t.equal(parseCertificates('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'), undefined)
})

t.test('Node\'s bundled roots are the default anchors, parsed once', async (t) => {
  const roots = bundledRootCertificates()
  t.ok(roots.length > 50)
  t.ok(roots.some((root) => /DigiCert Global Root G2/.test(root.subject)), 'the root PayPal\'s certificates chain to')
  t.equal(bundledRootCertificates(), roots)
})
