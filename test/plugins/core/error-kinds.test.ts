/*
 * The payment routes answer a gateway's coded errors by their kind: a code Paywire has never
 * heard of gets the buyer's page its kind calls for, and what the request got wrong is logged
 * below error level.
 */
import createError from '@fastify/error'
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { BaseGetStatus, Capture, CoreGatewayFactory, Payment, paywire, withKind, type Action, type ActionEntry } from '../../../plugins/core/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { ScriptedGatewayFactory, newScript, pathOf, storedPayment } from './fixtures.ts'

const BROWSER = { accept: 'text/html' }

const ACME_DECLINED = withKind('instrument_declined', createError('PAYWIRE_ERR_ACME_DECLINED', 'Acme declined card 4111 1111 1111 1111.', 402))
const ACME_3DS = withKind('payer_action_required', createError('PAYWIRE_ERR_ACME_3DS', 'Acme wants 3-D Secure.', 402))
const ACME_REFUSED = withKind('provider_refused', createError('PAYWIRE_ERR_ACME_REFUSED', 'Acme refused: merchant blocked.', 422))
const ACME_LOCKED = withKind('busy', createError('PAYWIRE_ERR_ACME_LOCKED', 'Acme is settling this payment.', 409))
const ACME_BAD_INPUT = withKind('invalid_request', createError('PAYWIRE_ERR_ACME_BAD_INPUT', 'Acme needs a street address.', 400))

async function shop (t: { teardown: (close: () => Promise<void>) => void }) {
  const script = newScript()
  const log = captureLog()
  const app = Fastify({ logger: { level: 'info', stream: log.stream } })
  t.teardown(() => app.close())
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    gateways: { scripted: { factory: 'scripted' } },
    configure: (builder) => { builder.addGatewayFactory('scripted', new ScriptedGatewayFactory(script)) }
  })
  await app.register(offlineGateway)
  await app.ready()
  /** Runs the capture link with the gateway failing with `error`. */
  const capture = async (error: Error, headers: Record<string, string> = BROWSER) => {
    const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', await storedPayment(app), 'done')
    script.error = error
    return { page: await app.inject({ url: `${pathOf(token.targetUrl)}?PayerID=P1`, headers }), path: new URL(token.targetUrl).pathname }
  }
  return { app, log, capture }
}

t.test('a gateway\'s code Paywire does not know gets the page of its kind', async (t) => {
  const { capture } = await shop(t)
  const declined = await capture(new ACME_DECLINED())
  t.equal(declined.page.statusCode, 402)
  t.match(declined.page.body, '<h1>Your payment method was declined</h1>')
  t.match(declined.page.body, 'choose another card or funding source')
  t.match(declined.page.body, `<a class="retry" href="${declined.path}">Try again</a>`, 'the same link lets the buyer choose again')
  t.notMatch(declined.page.body, '4111', 'the gateway\'s message is not the buyer\'s page')
  t.match((await capture(new ACME_3DS())).page.body, '<h1>The payment provider needs you to confirm this payment</h1>')
  t.match((await capture(new ACME_REFUSED())).page.body, '<h1>The payment provider could not complete your payment</h1>')
  const busy = await capture(new ACME_LOCKED())
  t.equal(busy.page.statusCode, 409)
  t.equal(busy.page.headers['retry-after'], '2')
  t.match(busy.page.body, '<h1>Your payment is being processed</h1>')
  const json = await capture(new ACME_LOCKED(), { accept: 'application/json' })
  t.same(json.page.json(), { statusCode: 409, code: 'PAYWIRE_ERR_ACME_LOCKED', error: 'Conflict', message: 'Acme is settling this payment.' })
  t.equal(json.page.headers['retry-after'], '2', 'API clients learn when to retry too')
})

t.test('client errors on the routes are logged at info or warn, never at error; a broken gateway is', async (t) => {
  const { app, log, capture } = await shop(t)
  await capture(new ACME_BAD_INPUT())
  await capture(new ACME_DECLINED(), { accept: 'application/json' })
  await app.inject({ url: `/payment/capture/${'a'.repeat(43)}`, headers: BROWSER })
  await app.inject({ url: '/payment/capture/short' })
  await app.inject({ method: 'POST', url: '/payment/notify/unsafe/scripted', headers: { 'content-type': 'application/json' }, payload: '{"id":' })
  const errors = () => log.records().filter((record) => (record.level as number) >= 50)
  t.same(errors(), [], 'nothing at error level')
  t.ok(log.records().some((record) => record.res !== undefined), 'the requests were logged')
  await capture(new Error('the gateway broke'))
  t.match(errors(), [{ msg: 'payment route failed', err: { message: 'the gateway broke' } }])
})

t.test('a failed request whose record cannot be stored is logged at warn: the caller\'s input, not a broken application', async (t) => {
  const { app, log } = await shop(t)
  class Unstorable implements Action {
    supports (request: unknown): boolean {
      return request instanceof Capture && request.model instanceof Payment
    }

    execute (request: Capture): void {
      (request.model as Payment).details = { note: 'from the buyer\u0000' }
      throw new ACME_DECLINED()
    }
  }
  class Status implements Action {
    supports (request: unknown): boolean {
      return request instanceof BaseGetStatus
    }

    execute (request: BaseGetStatus<unknown>): void {
      request.markNew()
    }
  }
  app.paywire.addGatewayFactory('unstorable', new (class extends CoreGatewayFactory {
    override getActions (): ActionEntry[] {
      return [Unstorable, Status, ...super.getActions()]
    }
  })())
  app.paywire.addGateway('unstorable', { factory: 'unstorable' })
  const payment = await storedPayment(app)
  const failed = await app.paywire.executeExclusive('unstorable', payment, (model) => new Capture(model)).catch((error: unknown) => error)
  t.match(failed, { code: 'PAYWIRE_ERR_ACME_DECLINED' }, String(failed))
  t.match(log.records().filter((record) => record.msg === 'paywire: storing what a failed request recorded failed too'),
    [{ level: 40, err: { code: 'PAYWIRE_ERR_RECORD_NOT_STORABLE' } }])
})
