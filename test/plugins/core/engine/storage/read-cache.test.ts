import t from 'tap'
import {
  Capture, ExclusiveExecutor, ExecuteSameRequestWithModelDetailsAction, Gateway, GetHumanStatus, HttpRequestVerifier, MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, Payment,
  ReadCache, StorageExtension, StorageRegistry, Token, type StoredRecord, type TokenRead
} from '../../../../../plugins/core/engine/index.ts'
import { FnGatewayAction } from '../../../../helpers/engine.ts'

/*
 * A record read ahead with a token (ReadCache) goes from the token storage, through the
 * route, the executor and the gateway's execute, to the storage that keeps it: these tests
 * follow it through the engine with a storage that keeps its records in memory and takes
 * what the cache holds under its own name, as RedisStorage does under its client and key.
 */

/** Counts its reads; takes a record read ahead under (itself, id) instead of reading. */
class ReadAheadStorage extends MemoryStorage<Payment> {
  reads = 0
  /** Per find: whether it was given a cache. */
  given: boolean[] = []

  protected override async doFind (id: string, reads?: ReadCache): Promise<StoredRecord | null> {
    this.given.push(reads !== undefined)
    const ahead = reads?.take(this, id)
    if (ahead !== undefined) return ahead.value as StoredRecord | null
    this.reads++
    return await super.doFind(id)
  }
}

async function setup () {
  const backend = new MemoryStorageBackend()
  const tokens = backend.createTokenStorage()
  const payments = new ReadAheadStorage(Payment)
  const storages = new StorageRegistry().add(Payment, payments)
  const logger = { debug () {}, info () {}, warn () {}, error () {} }
  const executor = new ExclusiveExecutor({ backend, tokenStorage: tokens, storages, logger })
  // A token becomes its identity, then the stored payment, as in every gateway.
  const gateway = new Gateway().addExtension(new StorageExtension(storages)).addAction(new ExecuteSameRequestWithModelDetailsAction())
  const payment = Object.assign(payments.create(), { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' })
  await payments.update(payment)
  const token = Object.assign(new Token(), { gatewayName: 'cash', targetUrl: 'https://shop.example/payment/capture/x', details: payments.identify(payment) })
  await tokens.save([token])
  payments.reads = 0
  /** The stored record as a token storage would have read it with the token. */
  const readAhead = (fields: Partial<Payment> = {}) => new ReadCache().put(payments, payment.id as string,
    { record: { ...JSON.parse(JSON.stringify(payment)), ...fields }, version: payments.versionOf(payment) as number })
  return { tokens, payments, executor, gateway, payment, token, readAhead }
}

t.test('a cache entry is found only under its source and key, and only once', async (t) => {
  const source = {}
  const cache = new ReadCache().put(source, 'a', 'stored').put(source, 'b', null)
  t.equal(cache.size, 2)
  t.equal(cache.take({}, 'a'), undefined, 'another source (another connection, another store) never finds it')
  t.equal(cache.take(source, 'c'), undefined)
  t.same(cache.take(source, 'b'), { value: null }, '"nothing stored there" is an answer too')
  t.same(cache.take(source, 'a'), { value: 'stored' })
  t.equal(cache.take(source, 'a'), undefined, 'taken once')
  t.equal(cache.size, 0)
})

t.test('a claimed request starts from the record read with its claim, without reading it again', async (t) => {
  const { executor, gateway, payments, payment, token, tokens, readAhead } = await setup()
  const claim = await tokens.claimByKey(tokens.tokenClaimKey(token), 1000)
  let seen: Payment | undefined
  gateway.addAction(new FnGatewayAction(Capture, async (request) => {
    seen = request.firstModel as Payment
    seen.description = 'captured'
  }))
  const reads = readAhead()
  await executor.execute(gateway, token, (target) => new Capture(target), { claim, invalidateToken: token, reads })
  t.equal(payments.reads, 0, 'the storage read nothing')
  t.equal(reads.size, 0, 'the read-ahead copy was taken')
  t.equal(seen?.number, 'ORDER-1')
  t.equal((await payments.find(payment.id as string))?.description, 'captured', 'committed over the version read ahead')
})

t.test('a re-run after a lost compare-and-set reads afresh: the copy read ahead is for the first attempt only', async (t) => {
  const { executor, gateway, payments, payment, token, tokens, readAhead } = await setup()
  const claim = await tokens.claimByKey(tokens.tokenClaimKey(token), 1000)
  const descriptions: Array<string | undefined> = []
  gateway.addAction(new FnGatewayAction(Capture, async (request) => {
    const model = request.firstModel as Payment
    descriptions.push(model.description)
    if (descriptions.length === 1) {
      // Another writer (one that takes no claim) stores a fact while the first attempt runs.
      const other = await payments.find(payment.id as string) as Payment
      other.description = 'written by another'
      await payments.update(other)
    }
    model.clientEmail = 'buyer@example.com'
  }))
  payments.given = []
  await executor.execute(gateway, token, (target) => new Capture(target), { claim, reads: readAhead() })
  t.same(descriptions, ['', 'written by another'], 'the re-run started from the other writer\'s fact')
  t.same(payments.given, [true, false, false], 'the first attempt\'s load was given the cache (the other writer\'s was not), the re-run\'s was not')
  t.match(await payments.find(payment.id as string), { description: 'written by another', clientEmail: 'buyer@example.com' })
})

t.test('records read ahead of a claim the executor takes itself are not used: they were not read under it', async (t) => {
  const { executor, gateway, payments, token } = await setup()
  gateway.addAction(new FnGatewayAction(Capture, async () => {}))
  payments.given = []
  await executor.execute(gateway, token, (target) => new Capture(target), { reads: new ReadCache().put(payments, token.details!.id, null) })
  t.same(payments.given, [false])
  t.equal(payments.reads, 1, 'the payment was read under the claim')
})

t.test('a top-level execute passes its reads to every load of its chain; a later execute without them reads', async (t) => {
  const { gateway, payments, token, readAhead } = await setup()
  gateway.addAction(new FnGatewayAction(GetHumanStatus, async (request) => { request.markCaptured() }))
  const status = new GetHumanStatus(token)
  await gateway.execute(status, { reads: readAhead() })
  t.equal(payments.reads, 0)
  t.equal((status.firstModel as Payment).number, 'ORDER-1')
  await gateway.execute(new GetHumanStatus(token))
  t.equal(payments.reads, 1, 'no reads given: the storage reads')
})

t.test('the verifier hands on what the token storage read with the token; by default it reads the token alone', async (t) => {
  const { tokens, token, readAhead } = await setup()
  const request = { url: '/payment/capture/x', params: { token: token.hash } }
  const plain = await new HttpRequestVerifier(tokens).verifyAndRead(request)
  t.equal(plain.token.hash, token.hash)
  t.equal(plain.reads, undefined, 'the memory token storage reads no record with its tokens')

  const reads = readAhead()
  class ReadingTokens extends MemoryTokenStorage {
    override async findAndRead (hash: string): Promise<TokenRead> {
      return { token: await this.find(hash), reads }
    }
  }
  const reading = new ReadingTokens()
  await reading.save([token])
  const verified = await new HttpRequestVerifier(reading).verifyAndRead(request)
  t.equal(verified.reads, reads)
  await t.rejects(new HttpRequestVerifier(reading).verifyAndRead({ url: '/payment/done/x', params: { token: token.hash } }),
    { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' }, 'checked like verify()')
  await t.rejects(new HttpRequestVerifier(reading).verifyAndRead({ url: '/payment/capture/x', params: { token: new Token().hash } }),
    { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' })
})
