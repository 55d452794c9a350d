/*
 * Status reads on a gateway whose actions and extensions are all Paywire's own are answered
 * from its state reader without the execute loop; a gateway with a status action or an
 * extension of the application's keeps every execute, as docs/extensions.md promises.
 */
import t from 'tap'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'
import {
  ArrayObject, Capture, GetBinaryStatus, GetHumanStatus, Payment, PaywireBuilder, Token,
  type Action, type Gateway, type Paywire
} from '../../../../../plugins/core/engine/index.ts'
import { CountingStorage, FnAction, recordingExtension } from '../../../../helpers/engine.ts'

function buildPaywire () {
  const payments = new CountingStorage(Payment)
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addStorage(Payment, payments)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  return { paywire, payments, gateway: paywire.getGateway('cash') }
}

async function captured (paywire: Paywire): Promise<{ payment: Payment, token: Token }> {
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  payment.number = 'ORDER-1'
  payment.totalAmount = 1234
  payment.currencyCode = 'EUR'
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await paywire.getGateway('cash').execute(new Capture(token))
  return { payment, token }
}

/** Executes, by request class: each one looks its action up once. */
function countExecutes (gateway: Gateway): string[] {
  const seen: string[] = []
  const lookup = gateway.findActionSupported.bind(gateway)
  gateway.findActionSupported = (request) => {
    seen.push(`${(request as object).constructor.name}{${((request as { model?: object }).model)?.constructor.name}}`)
    return lookup(request)
  }
  return seen
}

t.test('a status read by token runs no execute, reads what the executes read, and writes nothing', async (t) => {
  const { paywire, payments, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await captured(paywire)
  const seen = countExecutes(gateway)
  payments.updates = 0
  const status = new GetHumanStatus(token)
  t.equal(await gateway.execute(status), undefined)
  t.same(seen, [], 'no execute loop')
  t.equal(status.value, 'captured')
  t.same(status.amounts, { captured: 1234, refunded: 0, reversed: 0 })
  t.ok(status.firstModel instanceof Payment, 'the done page reads the stored payment')
  t.equal((status.firstModel as Payment).id, payment.id)
  t.ok(status.model instanceof ArrayObject, 'the request ends on the details, as after the executes')
  t.equal(status.token, token)
  t.equal(payments.updates, 0, 'a read never writes')

  const binary = new GetBinaryStatus(new ArrayObject({ ...payment.details, status: 'captured' }))
  await gateway.execute(binary)
  t.ok(binary.isCaptured(), 'GetBinaryStatus on a details bag too')
  t.same(seen, [])
})

t.test('an extension of the application sees every status execute, as before', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { token } = await captured(paywire)
  const log: string[] = []
  const models: string[] = []
  gateway.addExtension(recordingExtension('app', log, { onExecute: (context) => { models.push(((context.request as GetHumanStatus).model as object).constructor.name) } }))
  const status = new GetHumanStatus(token)
  await gateway.execute(status)
  t.equal(status.value, 'captured')
  t.same(models, ['Token', 'Payment', 'ArrayObject'], 'Token → Identity (loaded: Payment) → details, one execute each')
  t.equal(log.filter((line) => line === 'app.onPreExecute').length, 3)
})

t.test('a status action of the gateway answers first, through the executes', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { token } = await captured(paywire)
  const own = new FnAction(GetHumanStatus, (request) => { request.markSuspended() })
  // Added after a first read: the plan is worked out again when the actions change.
  const first = new GetHumanStatus(token)
  await gateway.execute(first)
  t.equal(first.value, 'captured')
  gateway.addAction(own, true)
  const status = new GetHumanStatus(token)
  await gateway.execute(status)
  t.equal(status.value, 'suspended')
  t.same(own.runs, [status])
})

t.test('a status action that answers only some models keeps the executes for every model', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { token } = await captured(paywire)
  const onlyFlagged: Action = {
    supports: (request) => request instanceof GetHumanStatus && request.model instanceof ArrayObject && request.model.data.flagged === true,
    execute: (request: GetHumanStatus) => { request.markFailed() }
  }
  gateway.addAction(onlyFlagged, true)
  const seen = countExecutes(gateway)
  const status = new GetHumanStatus(token)
  await gateway.execute(status)
  t.equal(status.value, 'captured', 'not flagged: the reader answers')
  t.equal(seen.length, 3, 'through the executes')
  const flagged = new GetHumanStatus(new ArrayObject({ status: 'captured', flagged: true }))
  await gateway.execute(flagged)
  t.equal(flagged.value, 'failed')
})

t.test('a payment that is not stored fails as it did, with the storage hints', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await captured(paywire)
  const storage = paywire.getStorage(Payment)
  await storage.delete(await storage.find(payment.id as string) as Payment)
  const status = new GetHumanStatus(token)
  await t.rejects(gateway.execute(status), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED', message: /GetHumanStatus\{model: Identity\}.*storage for "Payment"/ })
})

t.test('the cycle detector still stops a status read nested past its limit', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const { token } = await captured(paywire)
  // A request that executes itself until the detector (limit 100) stops it, reading a status at each level.
  class Deep { level = 0 }
  const statuses: string[] = []
  gateway.addAction({
    supports: (request) => request instanceof Deep,
    execute: async (request: Deep) => {
      const status = new GetHumanStatus(token)
      await gateway.execute(status)
      statuses.push(status.value)
      request.level++
      await gateway.execute(request)
    }
  } satisfies Action)
  await t.rejects(gateway.execute(new Deep()), { code: 'PAYWIRE_ERR_ENDLESS_CYCLE' })
  t.ok(statuses.length > 90 && statuses.every((value) => value === 'captured'))
})
