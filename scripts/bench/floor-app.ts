/*
 * The floor: the least work the benchmarked job can take, written by hand with Fastify and
 * ioredis. It stores a payment and its two tokens, redirects, reads and deletes the token
 * on capture, updates the payment, and answers the done JSON. No library, no validation
 * beyond what correctness needs. Paywire is measured against it.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'

interface FloorPayment {
  id: string
  number: string
  totalAmount: number
  currencyCode: string
  status: string
}

export async function buildFloorApp (redisUrl: string, keyPrefix: string): Promise<FastifyInstance> {
  // The same client settings as Paywire's Redis plugin, so neither side wins on batching alone.
  const redis = new Redis(redisUrl, { protocol: 2, enableAutoPipelining: true })
  const app = Fastify()
  await app.register(formbody)
  app.addHook('onClose', async () => { await redis.quit() })
  const token = () => randomBytes(32).toString('base64url')

  app.post('/prepare', async (request, reply) => {
    const body = request.body as { amount: string, currency: string }
    const payment: FloorPayment = {
      id: randomUUID(),
      number: `F-${Date.now()}`,
      totalAmount: Math.round(Number(body.amount) * 100),
      currencyCode: body.currency,
      status: 'new'
    }
    const capture = token()
    const done = token()
    const origin = `${request.protocol}://${request.host}`
    await redis.multi()
      .set(`${keyPrefix}p:${payment.id}`, JSON.stringify(payment))
      .set(`${keyPrefix}t:${capture}`, JSON.stringify({ payment: payment.id, after: `${origin}/done/${done}` }), 'EX', 3600)
      .set(`${keyPrefix}t:${done}`, JSON.stringify({ payment: payment.id }), 'EX', 86400)
      .exec()
    return reply.redirect(`${origin}/capture/${capture}`, 302)
  })

  app.get('/capture/:token', async (request, reply) => {
    const json = await redis.getdel(`${keyPrefix}t:${(request.params as { token: string }).token}`)
    if (json === null) return reply.code(404).send({ message: 'unknown token' })
    const { payment: id, after } = JSON.parse(json) as { payment: string, after: string }
    const payment = JSON.parse(await redis.get(`${keyPrefix}p:${id}`) as string) as FloorPayment
    payment.status = 'captured'
    await redis.set(`${keyPrefix}p:${id}`, JSON.stringify(payment))
    return reply.redirect(after, 302)
  })

  app.get('/done/:token', async (request, reply) => {
    const json = await redis.get(`${keyPrefix}t:${(request.params as { token: string }).token}`)
    if (json === null) return reply.code(404).send({ message: 'unknown token' })
    const { payment: id } = JSON.parse(json) as { payment: string }
    const payment = JSON.parse(await redis.get(`${keyPrefix}p:${id}`) as string) as FloorPayment
    return { status: payment.status, payment: { number: payment.number, totalAmount: payment.totalAmount, currencyCode: payment.currencyCode, details: {} } }
  })
  return app
}
