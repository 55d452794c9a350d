import t from 'tap'
import { MemoryStorageBackend, Payment } from '../../../../../plugins/core/engine/index.ts'
import { backendContract } from '../../../../helpers/backend-contract.ts'

backendContract(t, async () => {
  const backend = new MemoryStorageBackend()
  return { backend, tokens: backend.createTokenStorage(), payments: backend.createStorage(Payment) }
})
