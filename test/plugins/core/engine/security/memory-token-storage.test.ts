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

t.test('lock() is held until unlock(), expiry or invalidation', async (t) => {
  const clock = manualClock()
  const storage = new MemoryTokenStorage({ now: clock.now })
  const saved = token()
  await storage.save([saved])
  const first = await storage.lock(saved.hash, 1000)
  t.type(first, 'string', 'a lock id')
  t.equal(await storage.lock(saved.hash, 1000), null)
  clock.advance(999)
  t.equal(await storage.lock(saved.hash, 1000), null)
  clock.advance(1)
  const second = await storage.lock(saved.hash, 1000)
  t.type(second, 'string', 'an expired lock can be taken again')
  await storage.unlock(saved.hash, first as string)
  t.equal(await storage.lock(saved.hash, 1000), null, 'the first holder cannot release the lock its successor holds')
  await storage.unlock(saved.hash, second as string)
  const third = await storage.lock(saved.hash, 1000)
  t.type(third, 'string', 'released by its holder')
  await storage.invalidate(saved.hash, 'someone-else')
  t.equal(await storage.lock(saved.hash, 1000), null, 'invalidating with another lock id leaves the lock')
  await storage.invalidate(saved.hash, third as string)
  t.type(await storage.lock(saved.hash, 1000), 'string', 'invalidating with the holder\'s id drops the lock')
})

t.test('every 1000 saves, expired tokens and locks are swept from memory', async (t) => {
  const clock = manualClock(0)
  const storage = new MemoryTokenStorage({ now: clock.now, ttl: { capture: 1 } })
  const expiring = token()
  await storage.save([expiring])
  t.ok(await storage.lock(expiring.hash, 10))
  clock.set(5000)
  for (let i = 1; i < 1000; i++) await storage.save([token('notify')])
  // Back in time the token would be alive and the lock held again, had they not been swept.
  clock.set(0)
  t.equal(await storage.find(expiring.hash), null)
  t.type(await storage.lock(expiring.hash, 10), 'string')
})
