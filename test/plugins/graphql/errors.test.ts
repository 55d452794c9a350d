import t from 'tap'
import { errorCodes, providerError } from '../../../plugins/core/index.ts'
import { answer, internalError, isCode, toErrorResult, withDefaultFields, withFields } from '../../../plugins/graphql/errors.ts'
import { graphqlErrorCodes } from '../../../plugins/graphql/index.ts'

t.test('coded errors become the union member their code names, with their fields', async (t) => {
  const error = withFields(new errorCodes.PAYWIRE_ERR_UNKNOWN_GATEWAY('bitcoin', ''), { gateway: 'bitcoin' })
  t.same(toErrorResult(error, 'CreatePaymentResult'), {
    __typename: 'UnknownGateway', code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY', message: 'Gateway "bitcoin" is not registered.', gateway: 'bitcoin'
  })
  t.same(toErrorResult(new graphqlErrorCodes.PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND(), 'PaymentResult'),
    { __typename: 'PaymentNotFound', code: 'PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND', message: 'No payment matches.' })
})

t.test('errors a union does not declare, uncoded errors and non-errors have no union member', async (t) => {
  t.equal(toErrorResult(new graphqlErrorCodes.PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED('x'), 'CreatePaymentResult'), undefined)
  t.equal(toErrorResult(new errorCodes.PAYWIRE_ERR_TOKEN_USED(), 'RefundPaymentResult'), undefined)
  t.equal(toErrorResult(new Error('boom'), 'RefundPaymentResult'), undefined)
  t.equal(toErrorResult('boom', 'RefundPaymentResult'), undefined)
  t.equal(withDefaultFields('boom', { field: 'x' }), 'boom')
})

t.test('provider errors keep only the provider, its code and the debug id', async (t) => {
  const withoutDebugId = providerError({ provider: 'Acme', providerCode: 'DECLINED', message: 'card 4111 1111 1111 1111 declined' })
  t.same(toErrorResult(withoutDebugId, 'RefundPaymentResult'), {
    __typename: 'ProviderError', code: 'PAYWIRE_ERR_PROVIDER', message: 'Acme refused the request (DECLINED).', provider: 'Acme', providerCode: 'DECLINED', debugId: null
  })
})

t.test('default fields never override the ones an error carries', async (t) => {
  const error = withFields(new errorCodes.PAYWIRE_ERR_VALIDATION('id', 'is empty'), { field: 'id' })
  withDefaultFields(error, { field: 'amount', requestedAmount: 5 })
  t.match(toErrorResult(error, 'RefundPaymentResult'), { field: 'id', requestedAmount: 5 })
  t.ok(isCode(error, 'PAYWIRE_ERR_VALIDATION'))
  t.notOk(isCode(new Error('x'), 'PAYWIRE_ERR_VALIDATION'))
})

t.test('answer() turns typed errors into results and masks the rest after logging it', async (t) => {
  const logged: unknown[] = []
  const log = { error: (object: unknown) => { logged.push(object) } }
  t.equal(await answer('PaymentResult', log, async () => 'ok'), 'ok')
  t.match(await answer('PaymentResult', log, async () => { throw new graphqlErrorCodes.PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND() }), { __typename: 'PaymentNotFound' })
  const secret = new Error('password=hunter2')
  await t.rejects(answer('PaymentResult', log, async () => { throw secret }), {
    message: 'An unexpected error occurred; it has been logged.', extensions: { code: 'PAYWIRE_ERR_GRAPHQL_INTERNAL' }
  })
  t.same(logged, [{ err: secret }])
  t.notMatch(internalError(secret, log).message, 'hunter2')
})

t.test('a 4xx error of another library is logged at info but answered without its message', async (t) => {
  const logged: Array<[string, unknown]> = []
  const log = { error: (object: unknown) => { logged.push(['error', object]) }, info: (object: unknown) => { logged.push(['info', object]) } }
  const foreign = Object.assign(new Error('card 4242 declined for cus_secret'), { code: 'card_declined', statusCode: 402 })
  t.match(internalError(foreign, log), { message: 'An unexpected error occurred; it has been logged.', extensions: { code: 'PAYWIRE_ERR_GRAPHQL_INTERNAL' } })
  t.same(logged, [['info', { err: foreign }]])
})
