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

const retained: unknown[] = []

/**
 * Memory that stays: 10,000 payments stored in the memory storage (each as the demo shop
 * fills it), and 1,000 built gateways left idle. Heap and RSS after a full GC.
 */
async function memory (): Promise<{ heapPer10kPayments: number, rssPer10kPayments: number, heapPerIdleGateway: number, rssPerIdleGateway: number }> {
  const count = 10_000
  const paywire = paywireWith(1)
  const storage = paywire.getStorage(Payment)
  // One payment first: the storage's own structures are not the payments' cost.
  await storage.update(Object.assign(storage.create(), { totalAmount: 1, currencyCode: 'EUR' }))
  gc()
  let before = process.memoryUsage()
  for (let i = 0; i < count; i++) {
    const payment = storage.create()
    Object.assign(payment, {
      gatewayName: 'g0',
      number: `DEMO-${i.toString(36).toUpperCase()}-0123456789`,
      totalAmount: 1234,
      currencyCode: 'EUR',
      description: 'Demo order',
      clientEmail: ''
    })
    await storage.update(payment)
  }
  gc()
  let after = process.memoryUsage()
  // Still referenced after the measurement, or V8 may collect the storage before it.
  retained.push(storage)
  const heapPer10kPayments = after.heapUsed - before.heapUsed
  const rssPer10kPayments = after.rss - before.rss
  const gateways = 1000
  const built = paywireWith(gateways)
  built.getGateway('g0')
  gc()
  before = process.memoryUsage()
  for (let i = 1; i < gateways; i++) built.getGateway(`g${i}`)
  gc()
  after = process.memoryUsage()
  retained.push(built)
  return {
    heapPer10kPayments,
    rssPer10kPayments,
    heapPerIdleGateway: (after.heapUsed - before.heapUsed) / (gateways - 1),
    rssPerIdleGateway: (after.rss - before.rss) / (gateways - 1)
  }
}

const result = {
  memory: await memory(),
  coldGatewayBuildMs: coldBuildMs(),
  cachedGetGatewayNs: cachedLookupNs(),
  bytesPerBuiltGateway: bytesPerGateway(),
  tokens: await tokenRates()
}
process.stdout.write(`${JSON.stringify(result)}\n`)
