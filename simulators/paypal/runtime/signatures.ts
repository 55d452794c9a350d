import { createVerify, generateKeyPair, sign } from 'node:crypto'
import type { KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import { issueCertificate } from './certificate.ts'
import { newTransmissionId } from './ids.ts'
import { paypalTime } from './store.ts'
import type { SignOptions, WebhookSignatureHeaders } from './types.ts'
import { signedMessage } from '../../../gateways/paypal-shared/webhook-signature.ts'

export { crc32, signedMessage } from '../../../gateways/paypal-shared/webhook-signature.ts'

export const AUTH_ALGO = 'SHA256withRSA'

export interface SigningIdentity {
  certificateId: string
  privateKey: KeyObject
  publicKey: KeyObject
  certificatePem: string
  /** The simulator's CA, which issued certificatePem: what a verifier configures as its trust anchor. */
  certificateAuthorityPem: string
}

const generateRsaKeyPair = promisify(generateKeyPair)

/** The simulator's CA (standing in for PayPal's DigiCert root) and the signing certificate it issues. */
export async function createSigningIdentity (certificateId: string, now: number): Promise<SigningIdentity> {
  const [ca, { privateKey, publicKey }] = await Promise.all([
    generateRsaKeyPair('rsa', { modulusLength: 2048 }),
    generateRsaKeyPair('rsa', { modulusLength: 2048 })
  ])
  const notBefore = new Date(now)
  const caName = 'PayPal Simulator Root CA'
  const certificateAuthorityPem = issueCertificate({ publicKey: ca.publicKey, commonName: caName, issuerName: caName, issuerKey: ca.privateKey, notBefore, ca: true })
  const certificatePem = issueCertificate({ publicKey, commonName: certificateId, issuerName: caName, issuerKey: ca.privateKey, notBefore })
  return { certificateId, privateKey, publicKey, certificatePem, certificateAuthorityPem }
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
