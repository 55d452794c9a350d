import t from 'tap'
import { DEFAULT_TOKEN_TTL_SECONDS, MemoryTokenStorage, Token, TokenStorage, tokenTtlSeconds } from '../../../../../plugins/core/engine/index.ts'

t.test('lifetimes: given ones first, then the defaults by kind, else an hour', async (t) => {
  t.same(DEFAULT_TOKEN_TTL_SECONDS, { capture: 3600, authorize: 3600, payout: 3600, refund: 86_400, cancel: 86_400, sync: 86_400, after: 86_400, notify: 0 })
  t.equal(tokenTtlSeconds('capture', {}), 3600)
  t.equal(tokenTtlSeconds('capture', { capture: 60 }), 60)
  t.equal(tokenTtlSeconds('notify', {}), 0)
  t.equal(tokenTtlSeconds('something-else', {}), 3600)
  t.equal(tokenTtlSeconds('something-else', { 'something-else': 5 }), 5)
})

t.test('claim() finds and locks a token; a second claim while held is PAYWIRE_ERR_TOKEN_IN_USE', async (t) => {
  const storage: TokenStorage = new MemoryTokenStorage()
  const token = new Token()
  await storage.save([token])
  const claim = await storage.claim(token.hash, 1000)
  t.same(claim?.token, token)
  t.type(claim?.lockId, 'string')
  await t.rejects(storage.claim(token.hash, 1000), { code: 'PAYWIRE_ERR_TOKEN_IN_USE', statusCode: 409 })
  await storage.unlock(token.hash, claim?.lockId as string)
  t.same((await storage.claim(token.hash, 1000))?.token, token)
  t.equal(await storage.claim('unknown', 1000), null)
  t.type(await storage.lock('unknown', 1000), 'string', 'claiming an unknown token took no lock')
})
