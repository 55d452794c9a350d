import t from 'tap'
import { MemoryStorageBackend } from '../../../../../plugins/core/engine/index.ts'
import { paymentSearchContract } from '../../../../helpers/payment-search-contract.ts'

paymentSearchContract(t, async () => new MemoryStorageBackend())
