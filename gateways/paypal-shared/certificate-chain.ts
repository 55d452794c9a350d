import { X509Certificate } from 'node:crypto'
import { rootCertificates } from 'node:tls'

/** Certificates between a webhook signing certificate and its trust anchor, at most. */
const MAX_INTERMEDIATES = 4

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/** Every certificate of a PEM bundle, in order; undefined when one does not parse or there is none. */
export function parseCertificates (pem: string): X509Certificate[] | undefined {
  const blocks = pem.match(PEM_CERTIFICATE) ?? []
  if (blocks.length === 0) return undefined
  try {
    return blocks.map((block) => new X509Certificate(block))
  } catch {
    return undefined
  }
}

let bundledRoots: X509Certificate[] | undefined

/**
 * Node's bundled Mozilla CA roots, which PayPal's webhook certificates chain to (DigiCert).
 * Parsed once, the first time an offline verification needs them.
 */
export function bundledRootCertificates (): X509Certificate[] {
  bundledRoots ??= rootCertificates.map((pem) => new X509Certificate(pem))
  return bundledRoots
}

function validAt (certificate: X509Certificate, now: number): boolean {
  return Date.parse(certificate.validFrom) <= now && now <= Date.parse(certificate.validTo)
}

function issuedBy (certificate: X509Certificate, issuer: X509Certificate): boolean {
  return certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey)
}

/**
 * Is `chain[0]` (the signing certificate) issued, through the CA certificates that follow it
 * in the bundle, by one of `anchors`, with every certificate on the way (the anchor included)
 * valid at `now`? Each link is checked both by name (checkIssued) and by the issuer's
 * signature; a certificate the bundle offers as an intermediate must be a CA. A self-signed
 * or foreign certificate, or an expired one anywhere on the way, is not trusted.
 */
export function chainsToAnchor (chain: readonly X509Certificate[], anchors: readonly X509Certificate[], now: number): boolean {
  const [leaf, ...offered] = chain
  if (leaf === undefined) return false
  const unused = new Set(offered)
  let current = leaf
  for (let depth = 0; depth <= MAX_INTERMEDIATES; depth++) {
    if (!validAt(current, now)) return false
    if (anchors.some((anchor) => validAt(anchor, now) && issuedBy(current, anchor))) return true
    const next = [...unused].find((candidate) => candidate.ca && issuedBy(current, candidate))
    if (next === undefined) return false
    unused.delete(next)
    current = next
  }
  return false
}
