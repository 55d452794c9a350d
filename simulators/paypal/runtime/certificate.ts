import { createSign, randomBytes } from 'node:crypto'
import type { KeyObject } from 'node:crypto'

// Node can generate keys and parse certificates (X509Certificate) but cannot issue one. The
// simulator only needs two fixed shapes (a CA certificate and the signing certificate it issues,
// as PayPal's chain to DigiCert), which take a few dozen lines of DER below; a runtime dependency
// (node-forge, selfsigned) for the shipped simulator would bring far more code than that into
// every install.

function derLength (length: number): Buffer {
  if (length < 0x80) return Buffer.from([length])
  const bytes: number[] = []
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

function der (tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents)
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body])
}

const sequence = (...contents: Buffer[]): Buffer => der(0x30, ...contents)

// DER-encoded object identifiers: countryName, organizationName, commonName, sha256WithRSAEncryption.
const COUNTRY_NAME = der(0x06, Buffer.from('550406', 'hex'))
const ORGANIZATION_NAME = der(0x06, Buffer.from('55040a', 'hex'))
const COMMON_NAME = der(0x06, Buffer.from('550403', 'hex'))
const SHA256_WITH_RSA = sequence(der(0x06, Buffer.from('2a864886f70d01010b', 'hex')), Buffer.from([0x05, 0x00]))

// RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
function derTime (date: Date): Buffer {
  const digits = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(digits.slice(2))) : der(0x18, Buffer.from(digits))
}

function distinguishedName (commonName: string): Buffer {
  const attribute = (type: Buffer, tag: number, value: string): Buffer =>
    der(0x31, sequence(type, der(tag, Buffer.from(value, 'utf8'))))
  return sequence(
    attribute(COUNTRY_NAME, 0x13, 'US'),
    attribute(ORGANIZATION_NAME, 0x0c, 'PayPal Simulator'),
    attribute(COMMON_NAME, 0x0c, commonName)
  )
}

// basicConstraints (2.5.29.19), critical, cA TRUE: what makes a certificate a CA to verifiers.
const CA_EXTENSIONS = der(0xa3, sequence(sequence(
  der(0x06, Buffer.from('551d13', 'hex')), der(0x01, Buffer.from([0xff])), der(0x04, sequence(der(0x01, Buffer.from([0xff]))))
)))

const VALIDITY_MS = 5 * 365 * 24 * 3600 * 1000

export interface CertificateRequest {
  /** The key the certificate is for. */
  publicKey: KeyObject
  commonName: string
  /** The issuer's name and key: itself for a self-signed certificate. */
  issuerName: string
  issuerKey: KeyObject
  notBefore: Date
  /** Default: 5 years. */
  validityMs?: number
  /** A CA certificate (basicConstraints cA TRUE), able to issue others. */
  ca?: boolean
}

/** An X.509 v3 certificate (PEM) for `publicKey`, signed SHA256withRSA with the issuer's private key. */
export function issueCertificate (request: CertificateRequest): string {
  const serial = randomBytes(16)
  // A positive INTEGER without a leading zero byte.
  serial.writeUInt8((serial.readUInt8(0) & 0x7f) | 0x01, 0)
  const tbsCertificate = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    SHA256_WITH_RSA,
    distinguishedName(request.issuerName),
    sequence(derTime(request.notBefore), derTime(new Date(request.notBefore.getTime() + (request.validityMs ?? VALIDITY_MS)))),
    distinguishedName(request.commonName),
    request.publicKey.export({ type: 'spki', format: 'der' }),
    ...(request.ca === true ? [CA_EXTENSIONS] : [])
  )
  const signature = createSign('sha256').update(tbsCertificate).sign(request.issuerKey)
  const certificate = sequence(tbsCertificate, SHA256_WITH_RSA, der(0x03, Buffer.from([0]), signature))
  const base64 = certificate.toString('base64').replace(/.{64}(?=.)/g, '$&\n')
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`
}

/** A self-signed X.509 v3 certificate (PEM) for `publicKey`, signed SHA256withRSA with `privateKey`. */
export function selfSignedCertificate (privateKey: KeyObject, publicKey: KeyObject, commonName: string, notBefore: Date): string {
  return issueCertificate({ publicKey, commonName, issuerName: commonName, issuerKey: privateKey, notBefore })
}
