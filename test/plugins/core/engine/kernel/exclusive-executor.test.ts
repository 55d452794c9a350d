import t from 'tap'
import {
  Capture, Checkpoint, CheckpointAction, ExclusiveExecutor, Gateway, HttpRedirect, Identity, MemoryStorageBackend, Payment,
  Refund, StorageExtension, StorageRegistry, Token, type Logger
} from '../../../../../plugins/core/engine/index.ts'
import { FnGatewayAction } from '../../../../helpers/engine.ts'

function deferred () {
  let resolve!: () => void
  const promise = new Promise<void>((_resolve) => { resolve = _resolve })
  return { promise, resolve }
}

function recordingLogger (): Logger & { lines: Array<[string, unknown, string?]> } {
  const lines: Array<[string, unknown, string?]> = []
  const at = (level: string) => (object: unknown, message?: string) => { lines.push([level, object, message]) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

async function setup (options: { claimTtlMs?: number, attempts?: number } = {}) {
  const backend = new MemoryStorageBackend()
  const tokens = backend.createTokenStorage()
  const payments = backend.createStorage(Payment)
  const storages = new StorageRegistry().add(Payment, payments)
  const logger = recordingLogger()
  const executor = new ExclusiveExecutor({ backend, tokenStorage: tokens, storages, logger, ...options })
  const gateway = new Gateway().addExtension(new StorageExtension(storages)).addAction(new CheckpointAction())
  const payment = payments.create()
  Object.assign(payment, { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' })
  await payments.update(payment)
  const identity = payments.identify(payment)
  return { backend, tokens, payments, executor, gateway, payment, identity, logger }
}

t.test('the payment is claimed, read again, changed and committed with the claim\'s release', async (t) => {
  const { executor, gateway, payments, payment, tokens, identity } = await setup()
  let busyWhileRunning: unknown
  gateway.addAction(new FnGatewayAction(Refund, async (request) => {
    busyWhileRunning = await tokens.claimModel(identity, 1000).catch((error: Error & { code: string }) => error.code)
    ;(request.model as Payment).description = 'refunded'
  }))
  const stale = payment
  stale.description = 'a stale copy the caller holds'
  const result = await executor.execute(gateway, stale, (target) => new Refund(target))
  t.equal(busyWhileRunning, 'PAYWIRE_ERR_PAYMENT_BUSY', 'nobody else got the payment while the request ran')
  t.equal(result.changed, true)
  t.equal(result.reply, undefined)
  t.not(result.request.firstModel, stale, 'the gateway ran on the stored payment, not the caller\'s copy')
  t.equal((await payments.find(payment.id as string))?.description, 'refunded')
  t.ok(await tokens.claimModel(identity, 1000), 'released')
})

t.test('a request that changes nothing commits nothing; a reply is returned and keeps the token', async (t) => {
  const { executor, gateway, payment, payments, tokens } = await setup()
  gateway.addAction(new FnGatewayAction(Capture, async () => { throw new HttpRedirect('https://provider.example/approve') }))
  const token = new Token()
  token.details = payments.identify(payment)
  await tokens.save([token])
  const result = await executor.execute(gateway, token, (target) => new Capture(target), { invalidateToken: token })
  t.equal(result.changed, false)
  t.type(result.reply, HttpRedirect)
  t.ok(await tokens.find(token.hash), 'a reply does not use the token up')
  t.equal(payments.versionOf(await payments.find(payment.id as string) as Payment), 1, 'nothing written')
})

t.test('a busy payment is refused without running the gateway', async (t) => {
  const { executor, gateway, identity, tokens } = await setup()
  let runs = 0
  gateway.addAction(new FnGatewayAction(Refund, async () => { runs++ }))
  const held = await tokens.claimModel(identity, 10_000)
  await t.rejects(executor.execute(gateway, identity, (target) => new Refund(target)), { code: 'PAYWIRE_ERR_PAYMENT_BUSY', statusCode: 409 })
  t.equal(runs, 0)
  await tokens.releaseClaim(held)
})

t.test('a request that loses a compare-and-set reads again and re-runs; it never overwrites', async (t) => {
  const { executor, gateway, payments, payment, logger } = await setup()
  let runs = 0
  gateway.addAction(new FnGatewayAction(Refund, async (request) => {
    runs++
    if (runs === 1) {
      // A writer that does not claim (application code calling storage.update) slips in.
      const other = await payments.find(payment.id as string) as Payment
      other.clientId = 'written meanwhile'
      await payments.update(other)
    }
    ;(request.model as Payment).description = `run ${runs}`
  }))
  await executor.execute(gateway, payment, (target) => new Refund(target))
  t.equal(runs, 2)
  t.match(await payments.find(payment.id as string), { clientId: 'written meanwhile', description: 'run 2' }, 'both facts are kept')
  t.match(logger.lines, [['warn', { paywire: { attempt: 1 } }, /reading it again/]])
})

t.test('after the last attempt the conflict is answered, and the claim released', async (t) => {
  const { executor, gateway, payments, payment, tokens, identity } = await setup({ attempts: 2 })
  gateway.addAction(new FnGatewayAction(Refund, async (request) => {
    const other = await payments.find(payment.id as string) as Payment
    other.clientId = `${other.clientId}x`
    await payments.update(other)
    ;(request.model as Payment).description = 'never stored'
  }))
  await t.rejects(executor.execute(gateway, payment, (target) => new Refund(target)), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  t.match(await payments.find(payment.id as string), { clientId: 'xx', description: '' })
  await tokens.releaseClaim(await tokens.claimModel(identity, 1000))
})

t.test('a checkpoint that loses the compare-and-set stops the request before its provider call; the re-run makes it once', async (t) => {
  const { executor, gateway, payments, payment } = await setup()
  const calls: string[] = []
  let runs = 0
  gateway.addAction(new FnGatewayAction(Refund, async (request, gateway) => {
    runs++
    const model = request.model as Payment
    model.details = { ...model.details, request_id: `refund-${String(model.details.refunds ?? 0)}` }
    if (runs === 1) {
      const other = await payments.find(payment.id as string) as Payment
      other.details = { refunds: 1 }
      await payments.update(other)
    }
    await gateway.execute(new Checkpoint())
    calls.push(model.details.request_id as string)
  }))
  await executor.execute(gateway, payment, (target) => new Refund(target))
  t.same(calls, ['refund-1'], 'one provider call, with the id the fresh record gives')
  t.match((await payments.find(payment.id as string))?.details, { refunds: 1, request_id: 'refund-1' })
})

t.test('what a failed request recorded is kept, its error answered, the claim released', async (t) => {
  const { executor, gateway, payments, payment, tokens, identity } = await setup()
  gateway.addAction(new FnGatewayAction(Capture, async (request) => {
    (request.model as Payment).details = { error: 'INSTRUMENT_DECLINED' }
    throw new Error('declined')
  }))
  await t.rejects(executor.execute(gateway, identity, (target) => new Capture(target)), { message: 'declined' })
  t.same((await payments.find(payment.id as string))?.details, { error: 'INSTRUMENT_DECLINED' })
  t.ok(await tokens.claimModel(identity, 1000))
})

t.test('when storing a failed request\'s record fails too, its own error is answered and the failure logged', async (t) => {
  const { executor, gateway, backend, identity, logger } = await setup()
  gateway.addAction(new FnGatewayAction(Capture, async (request) => {
    (request.model as Payment).details = { error: 'x' }
    throw new Error('declined')
  }))
  backend.commit = async () => { throw new Error('disk full') }
  await t.rejects(executor.execute(gateway, identity, (target) => new Capture(target)), { message: 'declined' })
  t.match(logger.lines, [['error', { err: { message: 'disk full' } }, /failed too/]])
})

t.test('a nested executeExclusive inside another execute of the same gateway commits on its own', async (t) => {
  const { executor, gateway, payments, backend } = await setup()
  const other = payments.create()
  other.number = 'OTHER'
  await payments.update(other)
  const seen = deferred()
  gateway.addAction(new FnGatewayAction(Capture, async (request) => {
    (request.model as Payment).description = 'inner'
    seen.resolve()
  }))
  gateway.addAction(new FnGatewayAction(Refund, async () => {
    // A webhook-like outer request that changes another payment through the executor.
    await executor.execute(gateway, other, (target) => new Capture(target))
    t.equal((await payments.find(other.id as string))?.description, 'inner', 'committed before the outer request ended')
  }))
  await gateway.execute(new Refund(null))
  await seen.promise
  t.ok(backend)
})

t.test('the claim is renewed while the gateway runs; once a renewal finds it lost, nothing more is written', async (t) => {
  const { executor, gateway, payments, payment, tokens, identity } = await setup({ claimTtlMs: 60 })
  // The heartbeat's timer does not keep a process alive (a server does): this test must.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  const acquire = tokens.acquireClaim.bind(tokens)
  let claimId: string | null = null
  tokens.acquireClaim = async (key, ttl) => (claimId = await acquire(key, ttl))
  const renew = tokens.renewClaim.bind(tokens)
  const renewals: boolean[] = []
  let renewed = deferred()
  tokens.renewClaim = async (claim, ttl) => {
    const held = await renew(claim, ttl)
    renewals.push(held)
    renewed.resolve()
    return held
  }
  let provider = 0
  gateway.addAction(new FnGatewayAction(Refund, async (request, gateway) => {
    await renewed.promise
    // Every 20 ms: a loaded machine may have run more than one by now, all while the claim was held.
    t.ok(renewals.length > 0 && renewals.every(Boolean), 'renewed while the gateway runs')
    // The request stalls; its claim is taken over by another request.
    await tokens.releaseClaim({ key: tokens.claimKey(identity), id: claimId as string })
    await acquire(tokens.claimKey(identity), 60_000)
    renewed = deferred()
    await renewed.promise
    ;(request.model as Payment).description = 'too late'
    await gateway.execute(new Checkpoint())
    provider++
  }))
  await t.rejects(executor.execute(gateway, identity, (target) => new Refund(target)), { code: 'PAYWIRE_ERR_CLAIM_LOST', statusCode: 409 })
  t.equal(renewals.at(-1), false, 'the renewal found the claim lost')
  t.equal(provider, 0, 'the checkpoint refused: no provider call')
  t.equal((await payments.find(payment.id as string))?.description, '', 'nothing was written')
})

t.test('a renewal the storage failed does not give the claim up: the lease still runs, the next renewal holds it, the request commits', async (t) => {
  const { executor, gateway, payments, payment, tokens, identity } = await setup({ claimTtlMs: 300 })
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  const renew = tokens.renewClaim.bind(tokens)
  const renewals: string[] = []
  let renewed = () => {}
  tokens.renewClaim = async (claim, ttl) => {
    try {
      if (renewals.length === 0) throw new Error('storage blip')
      const held = await renew(claim, ttl)
      renewals.push(held ? 'held' : 'lost')
      return held
    } catch (error) {
      renewals.push('failed')
      throw error
    } finally {
      renewed()
    }
  }
  gateway.addAction(new FnGatewayAction(Refund, async (request) => {
    for (;;) {
      if (renewals.length >= 2) break
      await new Promise<void>((resolve) => { renewed = resolve })
    }
    ;(request.model as Payment).description = 'committed after a blip'
  }))
  await executor.execute(gateway, identity, (target) => new Refund(target))
  t.same(renewals.slice(0, 2), ['failed', 'held'])
  t.equal((await payments.find(payment.id as string))?.description, 'committed after a blip')
})

t.test('the target may be a stored model, an identity or a token; identityOf tells which payment is claimed', async (t) => {
  const { executor, payment, identity, payments } = await setup()
  t.same(executor.identityOf(payment), identity)
  t.same(executor.identityOf(identity), identity)
  const token = new Token()
  token.details = payments.identify(payment)
  t.same(executor.identityOf(token), identity)
  t.equal(executor.claimTtlMs, 6000, 'a lease of a few seconds by default')
  t.equal(executor.attempts, 3)
  t.ok(new Identity('x', 'Payment'))
})
