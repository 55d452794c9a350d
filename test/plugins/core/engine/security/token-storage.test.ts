import t from 'tap'
import { hostname } from 'node:os'
import {
  CLAIM_HOLDER, DEFAULT_TOKEN_TTL_SECONDS, Identity, MemoryTokenStorage, Token, TokenStorage, claimHolder, newClaimId, tokenTtlSeconds
} from '../../../../../plugins/core/engine/index.ts'

t.test('lifetimes: given ones first, then the defaults by kind, else an hour', async (t) => {
  t.same(DEFAULT_TOKEN_TTL_SECONDS, { capture: 3600, authorize: 3600, payout: 3600, refund: 86_400, cancel: 86_400, sync: 86_400, after: 86_400, notify: 0 })
  t.equal(tokenTtlSeconds('capture', {}), 3600)
  t.equal(tokenTtlSeconds('capture', { capture: 60 }), 60)
  t.equal(tokenTtlSeconds('notify', {}), 0)
  t.equal(tokenTtlSeconds('something-else', {}), 3600)
  t.equal(tokenTtlSeconds('something-else', { 'something-else': 5 }), 5)
})

t.test('claim() finds a token and claims its payment; a used token tells where its result is', async (t) => {
  const storage: TokenStorage = new MemoryTokenStorage()
  const token = new Token()
  token.details = new Identity('p-1', 'Payment')
  token.afterUrl = 'https://shop.example/done'
  await storage.save([token])
  const claimed = await storage.claim(token.hash, 1000)
  t.same(claimed?.token, token)
  t.same(claimed?.claim.key, 'Payment:p-1', 'the claim is on the payment, not on the token')
  await t.rejects(storage.claimModel(new Identity('p-1', 'Payment'), 1000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY', statusCode: 409 })
  await storage.releaseClaim(claimed!.claim)
  await storage.invalidate(token.hash)
  await t.rejects(storage.claim(token.hash, 1000), { code: 'PAYWIRE_ERR_TOKEN_USED', afterUrl: 'https://shop.example/done' })
  t.equal(await storage.claim('unknown', 1000), null)
  t.type(await storage.acquireClaim('token:unknown', 1000), 'string', 'claiming an unknown token took no claim')
})

t.test('claim ids name their holder: this process (host, pid, incarnation), then an unguessable part', async (t) => {
  t.match(CLAIM_HOLDER, new RegExp(`^[\\w.-]+:${process.pid}:[\\w-]{6}$`))
  t.ok(CLAIM_HOLDER.startsWith(hostname().replace(/[^\w.-]/g, '_')), 'the host first')
  const [one, two] = [newClaimId(), newClaimId()]
  t.not(one, two)
  t.equal(claimHolder(one), CLAIM_HOLDER)
  t.match(one.slice(CLAIM_HOLDER.length), /^\/[\w-]{16}$/)
  t.equal(claimHolder('an-id-made-otherwise'), '', 'an id without a holder names none')
})
