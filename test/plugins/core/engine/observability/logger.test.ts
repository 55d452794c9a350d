import t from 'tap'
import { Capture, Logger, NullLogger, Payment, PaywireBuilder } from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'

t.test('the null logger is a Logger that accepts every level and writes nothing', async (t) => {
  const logger = new NullLogger()
  t.ok(logger instanceof Logger)
  const written: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((chunk: string) => { written.push(chunk); return true }) as typeof process.stdout.write
  try {
    logger.debug('d')
    logger.info({ a: 1 }, 'i')
    logger.warn('w')
    logger.error(new Error('e'), 'e')
  } finally {
    process.stdout.write = write
  }
  t.same(written, [])
})

t.test('an application\'s logger may define its levels as methods or as properties (docs/observability.md)', async (t) => {
  const lines: string[] = []
  class MethodLogger extends Logger {
    debug (_fields: unknown, message?: string): void { lines.push(`debug ${message ?? ''}`) }
    info (_fields: unknown, message?: string): void { lines.push(`info ${message ?? ''}`) }
    warn (_fields: unknown, message?: string): void { lines.push(`warn ${message ?? ''}`) }
    error (_fields: unknown, message?: string): void { lines.push(`error ${message ?? ''}`) }
  }
  const paywire = new PaywireBuilder()
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .addGlobalService(Logger, new MethodLogger())
    .getPaywire()
  const payment = new Payment()
  Object.assign(payment, { number: 'A-1', totalAmount: 100, currencyCode: 'EUR' })
  await paywire.getGateway('cash').execute(new Capture(payment))
  t.ok(lines.some((line) => line.startsWith('debug ')), 'Paywire writes to it')
})
