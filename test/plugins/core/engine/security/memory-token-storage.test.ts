import t from 'tap'
import { Identity, MemoryTokenStorage, Token, type TokenKind } from '../../../../../plugins/core/engine/index.ts'
import { manualClock } from '../../../../helpers/engine.ts'

function token (kind: TokenKind = 'capture'): Token {
  const made = new Token()
  made.kind = kind
  made.gatewayName = 'cash'
  made.details = new Identity('p-1', 'Payment')
  return made
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

t.test('find() returns a copy of the saved token; unknown hashes give null', async (t) => {
  const storage = new MemoryTokenStorage()
  const saved = token()
  await storage.save([saved])
  const found = await storage.find(saved.hash)
  t.same(found, saved)
  t.not(found, saved)
  ;(found as Token).gatewayName = 'mutated'
  t.equal((await storage.find(saved.hash))?.gatewayName, 'cash')
  t.equal(await storage.find('unknown'), null)
})

t.test('tokens expire by kind: capture after an hour, after tokens after a day, notify never', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now })
  const capture = token('capture')
  const after = token('after')
  const notify = token('notify')
  const custom = token('my-kind')
  await storage.save([capture, after, notify, custom])
  clock.advance(HOUR - 1)
  t.ok(await storage.find(capture.hash), 'capture: alive just before an hour')
  clock.advance(1)
  t.equal(await storage.find(capture.hash), null, 'capture: gone after an hour')
  t.equal(await storage.find(custom.hash), null, 'unknown kinds live an hour')
  t.ok(await storage.find(after.hash))
  clock.advance(DAY)
  t.equal(await storage.find(after.hash), null)
  clock.advance(3650 * DAY)
  t.ok(await storage.find(notify.hash), 'notify tokens never expire')
})

t.test('lifetimes per kind are configurable; 0 keeps a token forever', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now, ttl: { capture: 10, after: 0 } })
  const capture = token('capture')
  const after = token('after')
  const refund = token('refund')
  await storage.save([capture, after, refund])
  clock.advance(10_000)
  t.equal(await storage.find(capture.hash), null)
  t.ok(await storage.find(refund.hash), 'other kinds keep their defaults')
  clock.advance(3650 * DAY)
  t.ok(await storage.find(after.hash))
})

t.test('an expired token is deleted when found, even if the clock goes back', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now })
  const expiring = token()
  await storage.save([expiring])
  clock.advance(HOUR)
  t.equal(await storage.find(expiring.hash), null)
  clock.set(0)
  t.equal(await storage.find(expiring.hash), null)
})

t.test('invalidate() returns true once, for the caller that removed the token', async (t) => {
  const storage = new MemoryTokenStorage()
  const saved = token()
  await storage.save([saved])
  const results = await Promise.all([storage.invalidate(saved.hash), storage.invalidate(saved.hash)])
  t.same(results, [true, false])
  t.equal(await storage.find(saved.hash), null)
})

t.test('a claim is held until released or expired, on the storage\'s clock', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now })
  const first = await storage.acquireClaim('Payment:1', 1000)
  t.type(first, 'string', 'a claim id')
  t.equal(await storage.acquireClaim('Payment:1', 1000), null)
  clock.advance(999)
  t.equal(await storage.acquireClaim('Payment:1', 1000), null)
  clock.advance(1)
  t.equal(await storage.renewClaim({ key: 'Payment:1', id: first as string }, 1000), false, 'an expired claim cannot be renewed')
  const second = await storage.acquireClaim('Payment:1', 1000)
  t.type(second, 'string', 'an expired claim can be taken again')
  await storage.releaseClaim({ key: 'Payment:1', id: first as string })
  t.equal(await storage.acquireClaim('Payment:1', 1000), null, 'the first holder cannot release its successor\'s claim')
})

t.test('a used token is remembered as long as an after token lives', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now, ttl: { after: 10 } })
  const used = token()
  used.afterUrl = 'https://shop.example/done'
  await storage.save([used])
  t.equal(await storage.invalidate(used.hash), true)
  clock.advance(9999)
  t.same(await storage.findUsed(used.hash), { afterUrl: 'https://shop.example/done' })
  clock.advance(1)
  t.equal(await storage.findUsed(used.hash), null)
  t.equal(await storage.invalidate(used.hash), false)
})

t.test('every 1000 saves, expired tokens and claims are swept from memory', async (t) => {
  const clock = manualClock(0)
  const storage = new MemoryTokenStorage({ now: clock.now, ttl: { capture: 1 } })
  const expiring = token()
  await storage.save([expiring])
  t.ok(await storage.acquireClaim('Payment:1', 10))
  clock.set(5000)
  for (let i = 1; i < 1000; i++) await storage.save([token('notify')])
  // Back in time the token would be alive and the claim held again, had they not been swept.
  clock.set(0)
  t.equal(await storage.find(expiring.hash), null)
  t.type(await storage.acquireClaim('Payment:1', 10), 'string')
})
