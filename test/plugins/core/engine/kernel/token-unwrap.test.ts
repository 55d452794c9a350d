/*
 * A token's payment is loaded within the execute that received the token when only Paywire's
 * own extensions watch: one execute fewer per token request. What an application can see keeps
 * every execute: its own extension, and the executed-action lines at trace.
 */
import t from 'tap'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'
import {
  Capture, Logger, NullLogger, Payment, PaywireBuilder, StorageExtension, type Context, type Gateway, type Paywire
} from '../../../../../plugins/core/engine/index.ts'
import { CountingStorage } from '../../../../helpers/engine.ts'

function buildPaywire (logger?: Logger) {
  const payments = new CountingStorage(Payment)
  const builder = new PaywireBuilder()
  if (logger !== undefined) builder.addGlobalService(Logger, logger)
  const paywire = builder
    .setBaseUrl('https://shop.example')
    .addStorage(Payment, payments)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  return { paywire, payments, gateway: paywire.getGateway('cash') }
}

async function tokenFor (paywire: Paywire) {
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  payment.totalAmount = 1234
  payment.currencyCode = 'EUR'
  await storage.update(payment)
  return await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
}

/** The executes the storage extension ends, by request class and depth. */
function executes (gateway: Gateway): string[] {
  const seen: string[] = []
  const storage = gateway.extensions.find((extension) => extension instanceof StorageExtension) as StorageExtension
  const end = storage.onPostExecute.bind(storage)
  storage.onPostExecute = async (context: Context) => {
    seen.push(`${(context.request as object).constructor.name}@${context.previous.length}`)
    await end(context)
  }
  return seen
}

t.test('Capture(token) on a gateway with only its own extensions: 3 executes, the payment saved once', async (t) => {
  const { paywire, payments, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const token = await tokenFor(paywire)
  const seen = executes(gateway)
  payments.updates = 0
  await gateway.execute(new Capture(token))
  t.same(seen, ['Convert@1', 'Capture@1', 'Capture@0'])
  t.equal(payments.updates, 1)
  t.match(await paywire.getStorage(Payment).find(token.details?.id as string), { details: { status: 'captured' } })
})

t.test('an extension of the application sees the token, then the payment, each in its own execute', async (t) => {
  const { paywire, gateway } = buildPaywire()
  t.teardown(() => paywire.close())
  const token = await tokenFor(paywire)
  const models: string[] = []
  gateway.addExtension({
    onExecute: (context) => {
      if (context.request instanceof Capture) models.push(`${(context.request.model as object).constructor.name}@${context.previous.length}`)
    }
  })
  await gateway.execute(new Capture(token))
  t.same(models, ['Token@0', 'Payment@1', 'ArrayObject@2'])
})

t.test('at trace, every execute keeps its line: the unwrapping action at depth 1, the capture at depth 2', async (t) => {
  const lines: Array<{ action: string, depth: number }> = []
  class TraceLogger extends NullLogger {
    override isLevelEnabled = (): boolean => true
    override trace = (fields: unknown): void => { lines.push((fields as { paywire: { action: string, depth: number } }).paywire) }
  }
  const { paywire, gateway } = buildPaywire(new TraceLogger())
  t.teardown(() => paywire.close())
  await gateway.execute(new Capture(await tokenFor(paywire)))
  t.match(lines.find((line) => line.action === 'ExecuteSameRequestWithModelDetailsAction'), { depth: 1 })
  t.match(lines.find((line) => line.action === 'CapturePaymentAction'), { depth: 2 })
  t.match(lines.find((line) => line.action === 'StatusFromReaderAction'), { depth: 3 }, 'the status read it makes logs its line too')
})
