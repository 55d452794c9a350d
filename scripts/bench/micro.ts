/*
 * Library-only figures, in a process of their own started with --expose-gc:
 * gateway build and lookup times, memory per built gateway, token creation and
 * verification rates (in memory, so the library's own cost is what is measured).
 */
import { OfflineGatewayFactory } from '../../gateways/offline/index.ts'
import { Payment, PaywireBuilder, type Paywire } from '../../plugins/core/engine/index.ts'

const quick = process.argv.includes('--quick')
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})

function paywireWith (gateways: number): Paywire {
  const builder = new PaywireBuilder().setBaseUrl('https://shop.example').addGatewayFactory('offline', new OfflineGatewayFactory())
  for (let i = 0; i < gateways; i++) builder.addGateway(`g${i}`, { factory: 'offline' })
  return builder.getPaywire()
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/** First getGateway() of a gateway: scope, definitions, actions resolved. */
function coldBuildMs (): number {
  const samples: number[] = []
  const paywire = paywireWith(quick ? 300 : 2000)
  // The first build of a factory also creates the factory's scope; measure the gateways after it.
  paywire.getGateway('g0')
  for (let i = 1; i < (quick ? 300 : 2000); i++) {
    const start = performance.now()
    paywire.getGateway(`g${i}`)
    samples.push(performance.now() - start)
  }
  return median(samples)
}

function cachedLookupNs (): number {
  const paywire = paywireWith(1)
  paywire.getGateway('g0')
  const iterations = quick ? 1_000_000 : 10_000_000
  let sink = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) sink += paywire.getGateway('g0').actions.length
  const elapsed = Number(process.hrtime.bigint() - start)
  if (sink === 0) throw new Error('unreachable: keeps the loop from being optimized away')
  return elapsed / iterations
}

function bytesPerGateway (): number {
  const count = 1000
  const paywire = paywireWith(count)
  paywire.getGateway('g0')
  gc()
  const before = process.memoryUsage().heapUsed
  for (let i = 1; i < count; i++) paywire.getGateway(`g${i}`)
  gc()
  return (process.memoryUsage().heapUsed - before) / (count - 1)
}

async function tokenRates (): Promise<{ createPerSecond: number, verifyPerSecond: number }> {
  const paywire = paywireWith(1)
  const storage = paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { totalAmount: 100, currencyCode: 'EUR' })
  await storage.update(payment)
  const tokens = paywire.getTokenFactory()
  const verifier = paywire.getHttpRequestVerifier()
  const count = quick ? 20_000 : 200_000
  const made = []
  let start = performance.now()
  for (let i = 0; i < count; i++) made.push(await tokens.createCaptureToken('g0', payment, 'done'))
  const createPerSecond = count / ((performance.now() - start) / 1000)
  const requests = made.map((token) => {
    const url = new URL(token.targetUrl)
    return { url: url.pathname, query: Object.fromEntries(url.searchParams) }
  })
  start = performance.now()
  for (const request of requests) await verifier.verify(request)
  const verifyPerSecond = count / ((performance.now() - start) / 1000)
  return { createPerSecond, verifyPerSecond }
}

const result = {
  coldGatewayBuildMs: coldBuildMs(),
  cachedGetGatewayNs: cachedLookupNs(),
  bytesPerBuiltGateway: bytesPerGateway(),
  tokens: await tokenRates()
}
process.stdout.write(`${JSON.stringify(result)}\n`)
