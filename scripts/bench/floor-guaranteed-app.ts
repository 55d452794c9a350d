/*
 * The guaranteed floor on Redis: the least work the benchmarked flow takes with exactly the
 * guarantees Paywire gives it, written by hand with Fastify and ioredis. Where the bare floor
 * (floor-app.ts) skips them, this one keeps:
 *   - a single-use capture token, claimed atomically: one script checks the token is not used,
 *     takes the payment's claim (so two tabs or two instances cannot capture twice) and reads
 *     the payment, in one round trip;
 *   - a version-checked payment write: the payment is stored as "<version> <json>", prepare
 *     inserts it only where none is (SET NX), capture's commit writes only over the version read;
 *   - one atomic commit: one script checks the claim, the version and the token, then writes
 *     the payment, marks the token used, appends the event to the payment's outbox list, marks
 *     it due and releases the claim;
 *   - a minimal outbox drain, at least once and in order per payment: one script leases the due
 *     payments and reads their events, the handler runs, one script trims what was delivered,
 *     unmarks what is empty and releases the leases.
 * Buyer-path round trips: prepare 1, capture 2, done 1 (token and payment in one MGET). Keys
 * carry the payment's id as hash tag (the token names its payment), as Paywire's do.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'

interface Payment { id: string, number: string, totalAmount: number, currencyCode: string, status: string }

/* KEYS: payment, capture token, done token   ARGV: payment, capture token, done token, their lifetimes (ms) */
const PREPARE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[5])
return 1`

/* KEYS: token, claim, payment   ARGV: claim id, claim lifetime (ms). Answers {token, payment} or a reason. */
const CLAIM = `
local token = redis.call('GET', KEYS[1])
if not token or string.sub(token, 1, 5) == 'used:' then return 'unknown' end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'busy' end
return {token, redis.call('GET', KEYS[3])}`

/*
 * KEYS: claim, payment, token, outbox list, due index
 * ARGV: claim id, expected version, payment json, event, now (ms), partition, used-token lifetime (ms)
 */
const COMMIT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'claim_lost' end
local stored = redis.call('GET', KEYS[2])
if not stored or string.sub(stored, 1, string.find(stored, ' ', 1, true) - 1) ~= ARGV[2] then return 'conflict' end
local token = redis.call('GET', KEYS[3])
if not token or string.sub(token, 1, 5) == 'used:' then return 'token_used' end
redis.call('SET', KEYS[2], (tonumber(ARGV[2]) + 1) .. ' ' .. ARGV[3])
redis.call('SET', KEYS[3], 'used:' .. token, 'PX', ARGV[7])
redis.call('RPUSH', KEYS[4], ARGV[4])
redis.call('ZADD', KEYS[5], 'NX', ARGV[5], ARGV[6])
redis.call('DEL', KEYS[1])
return 'ok'`

/* KEYS: due index   ARGV: now, batch size, lease id, lease lifetime (ms), key prefix. Answers {partition, {events}}... */
const DRAIN_CLAIM = `
local out = {}
for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])) do
  if redis.call('SET', ARGV[5] .. '{' .. p .. '}:lease', ARGV[3], 'NX', 'PX', ARGV[4]) then
    out[#out + 1] = p
    out[#out + 1] = redis.call('LRANGE', ARGV[5] .. '{' .. p .. '}:outbox', 0, -1)
  end
end
return out`

/* KEYS: due index   ARGV: lease id, key prefix, then per partition: it, events delivered */
const DRAIN_SETTLE = `
for i = 3, #ARGV, 2 do
  local lease, list = ARGV[2] .. '{' .. ARGV[i] .. '}:lease', ARGV[2] .. '{' .. ARGV[i] .. '}:outbox'
  if redis.call('GET', lease) == ARGV[1] then
    redis.call('LTRIM', list, ARGV[i + 1], -1)
    if redis.call('LLEN', list) == 0 then redis.call('ZREM', KEYS[1], ARGV[i]) end
    redis.call('DEL', lease)
  end
end
return 0`

const BATCH = 100
const LEASE_MS = 30_000

type ScriptClient = Redis & {
  floorPrepare: (...args: Array<string | number>) => Promise<number>
  floorClaim: (...args: Array<string | number>) => Promise<string | [string, string | null]>
  floorCommit: (...args: Array<string | number>) => Promise<string>
  floorDrainClaim: (...args: Array<string | number>) => Promise<Array<string | string[]>>
  floorDrainSettle: (...args: Array<string | number>) => Promise<number>
}

export async function buildGuaranteedFloorApp (redisUrl: string, keyPrefix: string): Promise<FastifyInstance> {
  // The same client settings as Paywire's Redis plugin, so neither side wins on batching alone.
  const redis = new Redis(redisUrl, { protocol: 2, enableAutoPipelining: true }) as ScriptClient
  redis.defineCommand('floorPrepare', { numberOfKeys: 3, lua: PREPARE })
  redis.defineCommand('floorClaim', { numberOfKeys: 3, lua: CLAIM })
  redis.defineCommand('floorCommit', { numberOfKeys: 5, lua: COMMIT })
  redis.defineCommand('floorDrainClaim', { numberOfKeys: 1, lua: DRAIN_CLAIM })
  redis.defineCommand('floorDrainSettle', { numberOfKeys: 1, lua: DRAIN_SETTLE })
  const app = Fastify()
  await app.register(formbody)
  const random = () => randomBytes(32).toString('base64url')
  const key = (payment: string, what: string) => `${keyPrefix}{${payment}}:${what}`
  const dueKey = `${keyPrefix}{outbox}:due`
  // A token names its payment: "<payment id>.<random>", so every key a step touches is known up front.
  const parse = (token: string) => {
    const dot = token.indexOf('.')
    return dot < 1 ? undefined : { payment: token.slice(0, dot), key: key(token.slice(0, dot), `t:${token.slice(dot + 1)}`) }
  }

  // The shop's handler: what Paywire's demo does on payment.captured with logging off.
  let delivered = 0
  const handler = (event: { type: string }) => { if (event.type === 'payment.captured') delivered++ }
  let draining: Promise<void> | undefined
  let again = false
  async function drainOnce (): Promise<boolean> {
    const leaseId = randomUUID()
    const claimed = await redis.floorDrainClaim(dueKey, Date.now(), BATCH, leaseId, LEASE_MS, keyPrefix)
    if (claimed.length === 0) return false
    const settled: Array<string | number> = []
    for (let i = 0; i < claimed.length; i += 2) {
      const events = claimed[i + 1] as string[]
      for (const json of events) handler(JSON.parse(json) as { type: string })
      settled.push(claimed[i] as string, events.length)
    }
    await redis.floorDrainSettle(dueKey, leaseId, keyPrefix, ...settled)
    return claimed.length / 2 === BATCH
  }
  function drain (): void {
    if (draining !== undefined) {
      again = true
      return
    }
    draining = (async () => {
      do {
        again = false
        try {
          if (await drainOnce()) again = true
        } catch {
          // The poll below tries again.
        }
      } while (again)
    })().finally(() => { draining = undefined })
  }
  const poller = setInterval(drain, 1000)
  app.addHook('onClose', async () => {
    clearInterval(poller)
    await draining
    await redis.quit()
  })

  app.post('/prepare', async (request, reply) => {
    const body = request.body as { amount: string, currency: string }
    const payment: Payment = { id: randomUUID(), number: `F-${Date.now()}`, totalAmount: Math.round(Number(body.amount) * 100), currencyCode: body.currency, status: 'new' }
    const capture = random()
    const done = random()
    const origin = `${request.protocol}://${request.host}`
    const stored = await redis.floorPrepare(key(payment.id, 'p'), key(payment.id, `t:${capture}`), key(payment.id, `t:${done}`),
      `1 ${JSON.stringify(payment)}`, JSON.stringify({ after: `${origin}/done/${payment.id}.${done}` }), '{}', 3_600_000, 86_400_000)
    if (stored !== 1) return reply.code(409).send({ message: 'payment exists' })
    return reply.redirect(`${origin}/capture/${payment.id}.${capture}`, 302)
  })

  app.get('/capture/:token', async (request, reply) => {
    const token = parse((request.params as { token: string }).token)
    if (token === undefined) return reply.code(404).send({ message: 'unknown token' })
    const claimId = randomUUID()
    const claimed = await redis.floorClaim(token.key, key(token.payment, 'claim'), key(token.payment, 'p'), claimId, 30_000)
    if (claimed === 'unknown') return reply.code(404).send({ message: 'unknown token' })
    if (claimed === 'busy' || typeof claimed === 'string') return reply.code(409).send({ message: 'payment busy' })
    const [tokenJson, stored] = claimed as [string, string]
    const space = stored.indexOf(' ')
    const payment = JSON.parse(stored.slice(space + 1)) as Payment
    payment.status = 'captured'
    const event = JSON.stringify({ id: randomUUID(), type: 'payment.captured', occurredAt: new Date().toISOString(), status: 'captured', payment })
    const now = Date.now()
    const answer = await redis.floorCommit(key(token.payment, 'claim'), key(token.payment, 'p'), token.key, key(token.payment, 'outbox'), dueKey,
      claimId, stored.slice(0, space), JSON.stringify(payment), event, now, token.payment, 86_400_000)
    if (answer !== 'ok') return reply.code(409).send({ message: answer })
    drain()
    return reply.redirect((JSON.parse(tokenJson) as { after: string }).after, 302)
  })

  app.get('/done/:token', async (request, reply) => {
    const token = parse((request.params as { token: string }).token)
    if (token === undefined) return reply.code(404).send({ message: 'unknown token' })
    const [tokenJson, stored] = await redis.mget(token.key, key(token.payment, 'p'))
    if (tokenJson == null || stored == null) return reply.code(404).send({ message: 'unknown token' })
    const payment = JSON.parse(stored.slice(stored.indexOf(' ') + 1)) as Payment
    return { status: payment.status, payment: { number: payment.number, totalAmount: payment.totalAmount, currencyCode: payment.currencyCode, details: {} } }
  })
  app.get('/__bench/delivered', async () => ({ delivered }))
  return app
}
