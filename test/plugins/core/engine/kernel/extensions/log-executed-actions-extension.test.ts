import t from 'tap'
import {
  Capture, Gateway, HttpRedirect, LogExecutedActionsExtension, Logger, NullLogger, Payment, Sync
} from '../../../../../../plugins/core/engine/index.ts'
import { FnAction, FnGatewayAction } from '../../../../../helpers/engine.ts'

class MemoryLogger extends NullLogger {
  readonly lines: string[] = []
  override debug = (message: unknown) => { this.lines.push(String(message)) }
}

function payment (): Payment {
  return Object.assign(new Payment(), { number: 'ORDER-SECRET-9', clientEmail: 'buyer@example.com', totalAmount: 4321 })
}

t.test('logs one line per execute with its depth, action and request', async (t) => {
  const logger = new MemoryLogger()
  t.ok(logger instanceof Logger)
  const gateway = new Gateway()
    .addExtension(new LogExecutedActionsExtension(logger))
    .addAction(new FnGatewayAction(Capture, (request, gateway) => gateway.execute(new Sync(request.model))))
    .addAction(new FnAction(Sync))
  await gateway.execute(new Capture(payment()))
  t.same(logger.lines, [
    '[Paywire] 1# FnGatewayAction::execute(Capture{model: Payment})',
    '[Paywire] 2# FnAction::execute(Sync{model: Payment})'
  ])
})

t.test('logs replies and errors with their kind and code', async (t) => {
  const logger = new MemoryLogger()
  const gateway = new Gateway()
    .addExtension(new LogExecutedActionsExtension(logger))
    .addAction(new FnAction(Capture, () => { throw new HttpRedirect('https://psp.example/pay?id=1') }))
    .addAction(new FnAction(Sync, () => { throw new RangeError('bad') }))
  await gateway.execute(new Capture(payment()), { catchReply: true })
  await t.rejects(gateway.execute(new Sync(payment())))
  await t.rejects(gateway.execute('not a request'))
  t.same(logger.lines, [
    '[Paywire] 1# FnAction::execute(Capture{model: Payment})',
    '[Paywire] 1# FnAction::execute(Capture{model: Payment}) throws reply HttpRedirect{url: https://psp.example/pay?id=1}',
    '[Paywire] 1# FnAction::execute(Sync{model: Payment})',
    '[Paywire] 1# FnAction::execute(Sync{model: Payment}) throws exception RangeError',
    '[Paywire] 1# unknown action::execute(string) throws exception FastifyError [PAYWIRE_ERR_REQUEST_NOT_SUPPORTED]'
  ])
})

t.test('never logs what a model contains', async (t) => {
  const logger = new MemoryLogger()
  const gateway = new Gateway()
    .addExtension(new LogExecutedActionsExtension(logger))
    .addAction(new FnAction(Capture, () => { throw new Error('declined') }))
  await t.rejects(gateway.execute(new Capture(payment())))
  t.ok(logger.lines.length > 0)
  for (const line of logger.lines) {
    t.notMatch(line, /ORDER-SECRET-9|buyer@example\.com|4321|declined/)
  }
})
