import t from 'tap'
import { Payment } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, type PostgresStorage } from '../../../plugins/postgres/index.ts'
import { paymentSearchContract } from '../../helpers/payment-search-contract.ts'
import { testPostgres } from './fixtures.ts'

// A schema per test: every search sees only its own payments.
paymentSearchContract(t, async (t) => {
  const { pool, schema } = await testPostgres(t, 'search')
  return new PostgresStorageBackend(pool, { schema })
})

t.test('text PostgreSQL cannot hold is in no payment; a search is answered from the indexes', async (t) => {
  const { pool, schema } = await testPostgres(t, 'search_edges')
  const storage = new PostgresStorageBackend(pool, { schema }).createStorage(Payment) as PostgresStorage<Payment>
  for (const query of [{ gatewayName: 'a\u0000b' }, { currencyCode: '\u0000' }, { providerId: 'x\u0000' }]) {
    t.same(await storage.searchPayments({ first: 5, ...query }), { ids: [] })
  }
  const plan = await pool.query(`EXPLAIN SELECT facets FROM "${schema}".payment_facets WHERE model = 'Payment' AND status = ANY ('{captured}'::text[])
    AND (created_at, id) < (now(), 'x') ORDER BY created_at DESC, id DESC LIMIT 51`)
  t.match(plan.rows.map((row) => row['QUERY PLAN']).join('\n'), /Index/, 'no sequential read of every payment')
})
