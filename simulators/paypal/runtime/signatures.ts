import { createVerify, generateKeyPair, sign } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import { issueCertificate } from './certificate.ts'
import { newTransmissionId } from './ids.ts'
import { paypalTime } from './store.ts'
import type { SignOptions, WebhookSignatureHeaders } from './types.ts'

// PayPal's webhook signature, written from PayPal's "Integrate webhooks" guide
// (https://developer.paypal.com/api/rest/webhooks/rest/, "Self verification method"): the signed
// message is `transmissionId|timeStamp|webhookId|crc32`, crc32 being the CRC-32 of the raw event
// body in decimal, signed SHA256withRSA (PAYPAL-AUTH-ALGO) with the key of the certificate at
// PAYPAL-CERT-URL. verify-webhook-signature runs the same check on PayPal's side
// (https://developer.paypal.com/api/webhooks/v1/verify-webhook-signature-post). Deliberately not
// shared with the gateways' verifier: a mistake in the format must show up in their tests.

export const AUTH_ALGO = 'SHA256withRSA'

// CRC-32 as zlib, PNG and PayPal compute it: the reflected polynomial 0xEDB88320, the register
// starting at all ones and inverted at the end.
const CRC32_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let remainder = byte
  for (let bit = 0; bit < 8; bit++) remainder = (remainder >>> 1) ^ (remainder & 1 ? 0xedb88320 : 0)
  return remainder >>> 0
})

/** The CRC-32 of `data` (a string counts as its UTF-8 bytes), unsigned, as the message shows it. */
export function crc32 (data: string | Buffer): number {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
  let register = 0xffffffff
  for (const byte of bytes) register = (register >>> 8) ^ (CRC32_TABLE[(register ^ byte) & 0xff] as number)
  return (register ^ 0xffffffff) >>> 0
}

/** `transmissionId|transmissionTime|webhookId|crc32(body)`: what PayPal signs for one delivery. */
export function signedMessage (transmissionId: string, transmissionTime: string, webhookId: string, body: string): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body)}`
}

export interface SigningIdentity {
  certificateId: string
  privateKey: KeyObject
  publicKey: KeyObject
  certificatePem: string
  /** The simulator's CA, which issued certificatePem: what a verifier configures as its trust anchor. */
  certificateAuthorityPem: string
}

interface KeyPair {
  privateKey: KeyObject
  publicKey: KeyObject
}

const generateRsaKeyPair = promisify(generateKeyPair)
const newKeyPair = async (): Promise<KeyPair> => await generateRsaKeyPair('rsa', { modulusLength: 2048 })

let processKeys: Promise<{ ca: KeyPair, signing: KeyPair }> | undefined

/**
 * The CA and signing keys every simulator of this process uses, made on first use: an RSA-2048
 * pair costs a tenth of a second of CPU or more, and a test run builds hundreds of simulators.
 * Made at run time, never stored: no key that could pass for anyone's real one.
 */
async function sharedKeys (): Promise<{ ca: KeyPair, signing: KeyPair }> {
  processKeys ??= Promise.all([newKeyPair(), newKeyPair()]).then(([ca, signing]) => ({ ca, signing }))
  return await processKeys
}

/**
 * The simulator's CA (standing in for PayPal's DigiCert root) and the signing certificate it
 * issues, both dated `now` and named after `certificateId`. The keys are the process's unless
 * `freshKeys` asks for a pair of its own (a second identity: another PayPal, a rotated key).
 */
export async function createSigningIdentity (certificateId: string, now: number, options: { freshKeys?: boolean } = {}): Promise<SigningIdentity> {
  const { ca, signing } = options.freshKeys === true
    ? { ca: await newKeyPair(), signing: await newKeyPair() }
    : await sharedKeys()
  const notBefore = new Date(now)
  const caName = 'PayPal Simulator Root CA'
  const certificateAuthorityPem = issueCertificate({ publicKey: ca.publicKey, commonName: caName, issuerName: caName, issuerKey: ca.privateKey, notBefore, ca: true })
  const certificatePem = issueCertificate({ publicKey: signing.publicKey, commonName: certificateId, issuerName: caName, issuerKey: ca.privateKey, notBefore })
  return { certificateId, privateKey: signing.privateKey, publicKey: signing.publicKey, certificatePem, certificateAuthorityPem }
}

export function certificatePath (certificateId: string): string {
  return `/v1/notifications/certs/${certificateId}`
}

export function signWebhookBody (
  identity: SigningIdentity, base: string, now: number, body: string, options: SignOptions
): WebhookSignatureHeaders {
  const transmissionId = options.transmissionId ?? newTransmissionId()
  const transmissionTime = options.transmissionTime ?? paypalTime(now)
  const message = signedMessage(transmissionId, transmissionTime, options.webhookId, body)
  return {
    'paypal-transmission-id': transmissionId,
    'paypal-transmission-time': transmissionTime,
    'paypal-transmission-sig': sign('sha256', Buffer.from(message, 'utf8'), identity.privateKey).toString('base64'),
    'paypal-cert-url': `${base}${certificatePath(identity.certificateId)}`,
    'paypal-auth-algo': AUTH_ALGO
  }
}

export interface VerificationInput {
  authAlgo: string
  certUrl: string
  transmissionId: string
  transmissionSig: string
  transmissionTime: string
  webhookId: string
  /** Candidate serialisations of the event; verification passes if any matches the signature. */
  eventBodies: string[]
}

/** The §4.5 check, as PayPal's verify-webhook-signature runs it against its own certificate. */
export function verifyWebhookSignature (identity: SigningIdentity, input: VerificationInput): boolean {
  if (input.authAlgo !== AUTH_ALGO) return false
  if (!URL.canParse(input.certUrl) || new URL(input.certUrl).pathname !== certificatePath(identity.certificateId)) return false
  const signature = Buffer.from(input.transmissionSig, 'base64')
  return input.eventBodies.some((body) =>
    createVerify('sha256')
      .update(signedMessage(input.transmissionId, input.transmissionTime, input.webhookId, body))
      .verify(identity.publicKey, signature))
}
