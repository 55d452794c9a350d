import type { FastifyInstance, FastifyRequest } from 'fastify'
import { newAccessToken, newNonceSuffix } from './ids.ts'
import { apiError, OAuthError } from './errors.ts'
import { addFormParser } from './protocol.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { paypalTime } from './store.ts'
import type { SimulatorStore } from './store.ts'

// The scope string PayPal returns for a REST app with the Payments and Webhooks features.
const SCOPE = [
  'https://uri.paypal.com/services/invoicing',
  'https://uri.paypal.com/services/applications/webhooks',
  'openid',
  'https://uri.paypal.com/payments/payouts',
  'https://api.paypal.com/v1/payments/.*',
  'https://api.paypal.com/v1/vault/credit-card/.*'
].join(' ')

function clientAuthenticationFailed (): OAuthError {
  return new OAuthError(401, { error: 'invalid_client', error_description: 'Client Authentication failed' })
}

function basicCredentials (request: FastifyRequest): { clientId: string, clientSecret: string } {
  const match = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')
  if (match === null) throw clientAuthenticationFailed()
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const separator = decoded.indexOf(':')
  const clientId = separator === -1 ? decoded : decoded.slice(0, separator)
  const clientSecret = separator === -1 ? '' : decoded.slice(separator + 1)
  if (clientId === '' || clientSecret === '') {
    throw new OAuthError(400, { error_description: 'client id or secret is null', error: 'invalid_client' })
  }
  return { clientId, clientSecret }
}

export function issueAccessToken (store: SimulatorStore, clientId: string): string {
  const accessToken = newAccessToken()
  store.tokens.set(accessToken, { clientId, expiresAt: store.now() + store.config.accessTokenTtlSeconds * 1000 })
  return accessToken
}

/** `POST /v1/oauth2/token`, client-credentials only, in its own context so only it accepts form bodies. */
export function registerOAuthRoutes (app: FastifyInstance, runtime: SimulatorRuntime): void {
  const { store } = runtime
  app.removeAllContentTypeParsers()
  addFormParser(app)

  app.post<{ Body: Record<string, string> | undefined }>('/v1/oauth2/token', async function grantAccessToken (request) {
    const { clientId, clientSecret } = basicCredentials(request)
    const client = store.clients.get(clientId)
    if (client === undefined || client.clientSecret !== clientSecret) throw clientAuthenticationFailed()
    const grantType = request.body?.grant_type
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, {
        error: 'unsupported_grant_type',
        error_description: grantType === undefined ? 'Grant Type is NULL' : 'Unsupported grant type'
      })
    }
    store.counters.tokenGrants++
    return {
      scope: SCOPE,
      access_token: issueAccessToken(store, clientId),
      token_type: 'Bearer',
      app_id: client.appId,
      expires_in: store.config.accessTokenTtlSeconds,
      nonce: `${paypalTime(store.now())}${newNonceSuffix()}`
    }
  })
}

/**
 * Bearer check for every REST route. A missing header gets PayPal's AUTHENTICATION_FAILURE body;
 * an unknown or expired token the OAuth `invalid_token` body clients see in production.
 */
export function requireAccessToken (app: FastifyInstance, runtime: SimulatorRuntime): void {
  const { store } = runtime
  app.addHook('onRequest', async function checkBearerToken (request) {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')
    if (match === null) throw apiError('AUTHENTICATION_FAILURE')
    const accessToken = match[1] as string
    const token = store.tokens.get(accessToken)
    if (token === undefined || token.expiresAt <= store.now()) {
      store.tokens.delete(accessToken)
      throw new OAuthError(401, { error: 'invalid_token', error_description: 'Access Token not found in cache' })
    }
    runtime.context(request).clientId = token.clientId
  })
}
