import t from 'tap'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { paymentSearchContract } from '../../helpers/payment-search-contract.ts'
import { testRedis } from './fixtures.ts'

paymentSearchContract(t, async (t) => {
  const { client, prefix } = await testRedis(t, 'payment-search')
  return new RedisStorageBackend(client, { keyPrefix: prefix })
})
