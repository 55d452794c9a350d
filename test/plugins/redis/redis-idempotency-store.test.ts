import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { RedisIdempotencyStore, RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { idempotencyStoreContract as contract } from '../../helpers/idempotency-contract.ts'
import { REDIS_URL } from './fixtures.ts'

t.test('the Redis backend\'s idempotency store keeps the contract, with expiring records', async (t) => {
  const client = new Redis(REDIS_URL)
  const prefix = `test:idempotency-store:${randomUUID()}:`
  t.teardown(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.unlink(keys)
    await client.quit()
  })
  const store = new RedisStorageBackend(client, { keyPrefix: prefix }).createIdempotencyStore('graphql')
  t.equal(store.keyPrefix, `${prefix}graphql:`, "the backend's key prefix, then the namespace")
  await contract(t, store)
  await store.claim('timed', { fingerprint: 'f', owner: 'o' }, 30_000)
  const lockTtl = await client.pttl(`${prefix}graphql:timed`)
  t.ok(lockTtl > 0 && lockTtl <= 30_000, 'claims expire by themselves')
  await store.complete('timed', { fingerprint: 'f', owner: 'o', result: 1 }, 86_400_000)
  const ttl = await client.pttl(`${prefix}graphql:timed`)
  t.ok(ttl > 30_000 && ttl <= 86_400_000, 'completed records live for the ttl')
  t.equal(new RedisIdempotencyStore(client, 'shop:', 'orders').keyPrefix, 'shop:orders:')
})
