/*
 * The claim contract seen from the payment routes: several application instances on one
 * backend, each receiving many concurrent GETs of one capture link (a double click, a
 * reload storm, a retrying proxy). The gateway must run once; every other request gets
 * what the docs promise (docs/consistency.md): a 303 to the payment's result, or a 409
 * busy while the first one still runs. Part of backendContract(), so every backend runs it.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { Payment, paywire, type Capture } from '../../plugins/core/index.ts'
import { OfflineGatewayFactory } from '../../gateways/offline/factory.ts'
import { CaptureAction } from '../../gateways/offline/actions/payment-actions.ts'
import type { BackendUnderTest } from './backend-contract.ts'

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

/** The offline gateway, counting how many times its Capture ran (where a real gateway would charge). */
class CountingOfflineFactory extends OfflineGatewayFactory {
  readonly runs: Map<string, number>

  constructor (runs: Map<string, number>) {
    super()
    this.runs = runs
  }

  override getActions (): ReturnType<OfflineGatewayFactory['getActions']> {
    const runs = this.runs
    return super.getActions().map((entry) => entry !== CaptureAction
      ? entry
      : class CountingCaptureAction extends CaptureAction {
        override execute (request: Capture): void {
          const number = String((request.firstModel as { number?: unknown } | undefined)?.number ?? request.model)
          runs.set(number, (runs.get(number) ?? 0) + 1)
          super.execute(request)
        }
      })
  }
}

async function instance (t: any, under: BackendUnderTest, runs: Map<string, number>): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    backend: under.backend,
    tokenStorage: under.tokens,
    storages: [[Payment, under.payments]],
    gateways: { counted: { factory: 'counted' } },
    configure: (builder) => { builder.addGatewayFactory('counted', new CountingOfflineFactory(runs)) }
  })
  await app.ready()
  return app
}

export const INSTANCES = 2
export const GETS_PER_INSTANCE = 25
const PAYMENTS = 4

export function claimRaceContract (t: Test, make: (t: any) => Promise<BackendUnderTest>): void {
  t.test(`contract: ${INSTANCES} instances × ${GETS_PER_INSTANCE} concurrent GETs of one capture link run the gateway once`, async (t: any) => {
    const under = await make(t)
    const runs = new Map<string, number>()
    const apps: FastifyInstance[] = []
    for (let i = 0; i < INSTANCES; i++) apps.push(await instance(t, under, runs))
    const shop = apps[0] as FastifyInstance
    // Several payments at once, each hit from every instance: the race has many chances to show.
    const tokens = await Promise.all(Array.from({ length: PAYMENTS }, async (_, p) => {
      const payment = Object.assign(shop.paywire.getStorage(Payment).create(),
        { number: `RACE-${p}-${Math.random()}`, totalAmount: 1999, currencyCode: 'EUR', details: { paid: true } })
      return { number: payment.number, token: await shop.paywire.prepareCapture('counted', payment, 'done') }
    }))
    const answers = await Promise.all(tokens.map(async ({ number, token }) => {
      const url = new URL(token.targetUrl).pathname
      const responses = await Promise.all(apps.flatMap((app) => Array.from({ length: GETS_PER_INSTANCE }, () => app.inject({ url }))))
      return { number, afterUrl: token.afterUrl, responses }
    }))
    for (const { number, afterUrl, responses } of answers) {
      t.equal(runs.get(number), 1, `${number}: the gateway's Capture ran once`)
      const codes = responses.map((response) => response.statusCode)
      t.equal(codes.filter((code) => code === 302).length, 1, `${number}: one request ran the capture and went on to the done page`)
      t.same(codes.filter((code) => code !== 302 && code !== 303 && code !== 409), [], `${number}: every other one got 303 or 409`)
      t.comment(`${number}: ${codes.filter((code) => code === 303).length} × 303, ${codes.filter((code) => code === 409).length} × 409`)
      for (const response of responses.filter((response) => response.statusCode === 303 || response.statusCode === 302)) {
        t.equal(response.headers.location, afterUrl, 'redirected to the payment\'s result')
      }
      for (const response of responses.filter((response) => response.statusCode === 409)) {
        t.equal(response.json().code, 'PAYWIRE_ERR_PAYMENT_BUSY')
      }
    }
    const done = await shop.inject({ url: new URL(answers[0]?.afterUrl as string).pathname })
    t.equal(done.statusCode, 200, 'the result page shows the payment')
    // The captures' events are delivered here, not left in an outbox the next suite on this backend reads.
    await shop.paywire.events.drain()
  })
}
