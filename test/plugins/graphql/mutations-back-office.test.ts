import t from 'tap'
import { Payment, errorCodes } from '../../../plugins/core/index.ts'
import type { PaywireGraphqlOperation } from '../../../plugins/graphql/index.ts'
import {
  ADMIN, CANCEL, REFUND, SECRET, buildGraphqlApp, capturedPayment, createPayment, gql, storedPayment
} from './fixtures.ts'

t.test('without an authorize option, back-office operations are always denied', async (t) => {
  const { app } = await buildGraphqlApp({ graphql: { authorize: undefined } })
  t.teardown(() => app.close())
  const id = await capturedPayment(app)
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment,
    { __typename: 'NotAuthorized', code: 'PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED', operation: 'refundPayment', message: /authorize\(context, operation\)/ })
  t.match((await gql(app, CANCEL, { id }, ADMIN)).data.cancelPayment, { __typename: 'NotAuthorized', operation: 'cancelPayment' })
  t.match(await app.paywire.getStorage(Payment).find(id), { details: { status: 'captured' } }, 'nothing changed')
})

t.test('authorize decides per caller and operation, and may be async', async (t) => {
  const asked: PaywireGraphqlOperation[] = []
  const { app } = await buildGraphqlApp({
    graphql: {
      authorize: async (context, operation) => {
        asked.push(operation)
        return context.reply?.request.headers['x-admin'] === 'yes' && operation !== 'cancelPayment'
      }
    }
  })
  t.teardown(() => app.close())
  const id = await capturedPayment(app)
  t.match((await gql(app, REFUND, { id })).data.refundPayment, { __typename: 'NotAuthorized' }, 'a shop visitor')
  t.match((await gql(app, CANCEL, { id }, ADMIN)).data.cancelPayment, { __typename: 'NotAuthorized' }, 'an operation this admin may not run')
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, { __typename: 'PaymentRefunded', status: 'REFUNDED' })
  t.same(asked, ['refundPayment', 'cancelPayment', 'refundPayment'])
})

t.test('refunds: full, partial, what remains; the gateway\'s amount check is a typed error', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const id = await capturedPayment(app)
  const partial = await gql(app, REFUND, { id, amount: 500 }, ADMIN)
  t.match(partial.data.refundPayment, {
    __typename: 'PaymentRefunded', status: 'REFUNDED', replayed: false, payment: { id, status: 'REFUNDED', details: { refunded_amount: 500 } }
  })
  t.match((await gql(app, REFUND, { id, amount: 2000 }, ADMIN)).data.refundPayment, {
    __typename: 'RefundAmountExceeded', code: 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED', requestedAmount: 2000, message: /only 1499 remain/
  })
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, { __typename: 'PaymentRefunded', payment: { details: { refunded_amount: 1999 } } })
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, {
    __typename: 'OperationNotAllowed', code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED', operation: 'refundPayment', status: 'REFUNDED'
  }, 'nothing left: the gateway did nothing, which is not a success')
})

t.test('a status that does not allow the operation is refused before the gateway runs', async (t) => {
  const { app, provider } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const fresh = await createPayment(app)
  t.match((await gql(app, REFUND, { id: fresh.id }, ADMIN)).data.refundPayment, {
    __typename: 'OperationNotAllowed', operation: 'refundPayment', status: 'NEW', message: 'Refund is not possible for a payment in status "new".'
  })
  const unpaid = await storedPayment(app, { gatewayName: 'provider', details: {} })
  t.match((await gql(app, REFUND, { id: unpaid.id }, ADMIN)).data.refundPayment, { __typename: 'OperationNotAllowed', status: 'NEW' })
  t.equal(provider.refunds, 0)
})

t.test('a gateway that refuses with PAYWIRE_ERR_OPERATION_NOT_ALLOWED answers OperationNotAllowed with the payment\'s status', async (t) => {
  const { app } = await buildGraphqlApp({ provider: { refunds: 0, refund: 'refuse' } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED' } })
  t.match((await gql(app, REFUND, { id: payment.id }, ADMIN)).data.refundPayment, {
    __typename: 'OperationNotAllowed', operation: 'refundPayment', status: 'CAPTURED', message: /status "disputed"/
  })
})

t.test('bad arguments, unknown payments and gateways are typed errors', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const id = await capturedPayment(app)
  const gone = await storedPayment(app, { gatewayName: 'removed' })
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ id, amount: 0 }, { __typename: 'InvalidAmount', field: 'amount' }],
    [{ id, amount: -5 }, { __typename: 'InvalidAmount', field: 'amount' }],
    [{ id, amount: 1.5 }, { __typename: 'InvalidAmount', field: 'amount' }],
    [{ id: '' }, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_VALIDATION', field: 'id' }],
    [{ id: 'no such payment' }, { __typename: 'InvalidInput', field: 'id' }],
    [{ id: 'missing' }, { __typename: 'PaymentNotFound', code: 'PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND' }],
    [{ id: gone.id }, { __typename: 'UnknownGateway', gateway: 'removed' }]
  ]
  for (const [args, expected] of cases) {
    t.match((await gql(app, REFUND, args, ADMIN)).data.refundPayment, expected, JSON.stringify(args))
  }
  t.match((await gql(app, CANCEL, { id: 'missing' }, ADMIN)).data.cancelPayment, { __typename: 'PaymentNotFound' })
})

t.test('gateways that cannot run the request server-side answer OperationNotSupported', async (t) => {
  const { app } = await buildGraphqlApp({ provider: { refunds: 0, refund: 'redirect' } })
  t.teardown(() => app.close())
  const statusOnly = await storedPayment(app, { gatewayName: 'statusonly', details: { state: 'COMPLETED' } })
  t.match((await gql(app, REFUND, { id: statusOnly.id }, ADMIN)).data.refundPayment, {
    __typename: 'OperationNotSupported', code: 'PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED', operation: 'refundPayment', gateway: 'statusonly'
  })
  t.match((await gql(app, CANCEL, { id: statusOnly.id }, ADMIN)).data.cancelPayment, { __typename: 'OperationNotSupported', operation: 'cancelPayment' })
  const redirecting = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED' } })
  t.match((await gql(app, REFUND, { id: redirecting.id }, ADMIN)).data.refundPayment,
    { __typename: 'OperationNotSupported', gateway: 'provider' }, 'a gateway that needs the buyer\'s browser')
})

t.test('provider refusals are ProviderError with the debug id; nothing secret or raw reaches the answer', async (t) => {
  const { app } = await buildGraphqlApp({ provider: { refunds: 0, refund: 'decline' } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED', access_token: SECRET } })
  const answer = await gql(app, REFUND, { id: payment.id }, ADMIN)
  t.same(answer.data.refundPayment, {
    __typename: 'ProviderError',
    code: 'PAYWIRE_ERR_PROVIDER',
    message: 'PayPal refused the request (INSTRUMENT_DECLINED).',
    provider: 'PayPal',
    providerCode: 'INSTRUMENT_DECLINED',
    debugId: 'f00dcafe1234'
  })
  t.notMatch(answer.body, SECRET)
  t.notMatch(answer.body, /raw body|HTTP 422/)
})

t.test('unexpected failures are logged and answered without their message or stack', async (t) => {
  const logs: string[] = []
  const { app } = await buildGraphqlApp({ logs, provider: { refunds: 0, refund: 'crash' } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED' } })
  const answer = await gql(app, REFUND, { id: payment.id }, ADMIN)
  t.equal(answer.data, null, 'the result is non-null, so the error reaches the root')
  t.match(answer.errors, [{ message: 'An unexpected error occurred; it has been logged.', extensions: { code: 'PAYWIRE_ERR_GRAPHQL_INTERNAL' }, path: ['refundPayment'] }])
  t.notMatch(answer.body, SECRET)
  t.notMatch(answer.body, /ECONNREFUSED|at .*\.ts:\d+/)
  t.match(logs.join(''), /ECONNREFUSED/, 'the real error is in the log')
})

t.test('cancels: authorized and pending payments; others are typed errors', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  for (const status of ['authorized', 'pending']) {
    const payment = await storedPayment(app, { details: { status } })
    t.match((await gql(app, CANCEL, { id: payment.id }, ADMIN)).data.cancelPayment,
      { __typename: 'PaymentCanceled', status: 'CANCELED', replayed: false, payment: { id: payment.id, status: 'CANCELED' } }, status)
  }
  const captured = await capturedPayment(app)
  t.match((await gql(app, CANCEL, { id: captured }, ADMIN)).data.cancelPayment,
    { __typename: 'OperationNotAllowed', operation: 'cancelPayment', status: 'CAPTURED' })
  // The offline gateway only cancels pending and authorized payments: a new one is left alone.
  const fresh = await createPayment(app)
  t.match((await gql(app, CANCEL, { id: fresh.id }, ADMIN)).data.cancelPayment,
    { __typename: 'OperationNotAllowed', status: 'NEW', message: 'Cancel is not possible for a payment in status "new".' })
})

t.test('two refunds of one payment never run side by side', async (t) => {
  let release = (): void => {}
  const provider = { refunds: 0, gate: new Promise<void>((resolve) => { release = resolve }) }
  const { app } = await buildGraphqlApp({ provider })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED' } })
  const first = gql(app, REFUND, { id: payment.id }, ADMIN)
  while (provider.refunds === 0) await new Promise((resolve) => setImmediate(resolve))
  const second = await gql(app, REFUND, { id: payment.id }, ADMIN)
  t.match(second.data.refundPayment, { __typename: 'PaymentBusy', code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  const cancel = await gql(app, CANCEL, { id: payment.id }, ADMIN)
  t.match(cancel.data.cancelPayment, { __typename: 'PaymentBusy' }, 'refunds and cancels share the payment\'s claim')
  release()
  t.match((await first).data.refundPayment, { __typename: 'PaymentRefunded', status: 'REFUNDED' })
  t.equal(provider.refunds, 1)
  t.match((await gql(app, REFUND, { id: payment.id }, ADMIN)).data.refundPayment, { __typename: 'OperationNotAllowed' },
    'the lock is released; the payment is refunded already')
})

t.test('a storage that is down is answered with its own code and message, which may be retried', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const id = await capturedPayment(app)
  const backend = app.paywire.getStorageBackend()
  backend.commit = async () => { throw new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('Redis') }
  const answer = await gql(app, REFUND, { id }, ADMIN)
  t.match(answer.errors, [{ message: /Redis storage is unavailable; nothing was written/, extensions: { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' } }])
  t.match(await app.paywire.getStorage(Payment).find(id), { details: { status: 'captured' } }, 'nothing changed')
})
