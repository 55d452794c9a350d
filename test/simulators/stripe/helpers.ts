import { once } from 'node:events'
import { createServer } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import { buildStripeSimulator } from 'paywire/stripe-simulator'
import type { StripeSimulator, StripeSimulatorOptions } from 'paywire/stripe-simulator'

export const KEY = 'sk_test_simulator'

export interface Started {
  app: StripeSimulator
  stripe: Stripe
  origin: string
  port: number
}

interface Teardown { teardown: (fn: () => unknown) => void }

/** A simulator on a free loopback port and the official SDK pointed at it. */
export async function startSimulator (t: Teardown, options: StripeSimulatorOptions = {}): Promise<Started> {
  const app = buildStripeSimulator(options)
  t.teardown(async () => await app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const stripe = new Stripe(options.apiKeys?.[0] ?? KEY, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 })
  return { app, stripe, origin: app.listeningOrigin, port }
}

export interface Received {
  headers: IncomingHttpHeaders
  body: string
}

export interface Receiver {
  url: string
  received: Received[]
  /** Statuses for the next answers, in order (0 drops the connection); 200 once they run out. */
  answers: number[]
}

/** A webhook endpoint on loopback that records every delivery. */
export async function startReceiver (t: Teardown, answers: number[] = []): Promise<Receiver> {
  const received: Received[] = []
  const receiver = { received, answers, url: '' }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
      const status = receiver.answers.shift() ?? 200
      // 0: the connection drops without an answer.
      if (status === 0) request.socket.destroy()
      else {
        response.statusCode = status
        response.end('ok')
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return receiver
}

/** A raw form-encoded call, for what the SDK will not send. */
export async function call (origin: string, method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number, headers: Headers, body: any }> {
  const answer = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), ...headers },
    ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() })
  })
  const text = await answer.text()
  let body: unknown = text
  try { body = JSON.parse(text) } catch {}
  return { status: answer.status, headers: answer.headers, body }
}

/** The line items of a one-item session. */
export const oneItem = (unitAmount = 1500, currency = 'eur'): Stripe.Checkout.SessionCreateParams.LineItem[] =>
  [{ quantity: 1, price_data: { currency, unit_amount: unitAmount, product_data: { name: 'Tea' } } }]
