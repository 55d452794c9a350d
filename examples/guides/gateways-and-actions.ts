/*
 * Gateways and actions (docs/gateways-and-actions.md): a gateway runs the first action that
 * supports a request; requests wrap plain objects; status requests are marked by actions.
 * Run: npx tsx --conditions=paywire-source examples/guides/gateways-and-actions.ts
 */
import { ArrayObject, Capture, Gateway, GetHumanStatus, Payment, PaywireBuilder, type Action } from 'paywire/engine'
import { OfflineGatewayFactory } from 'paywire/gateways/offline'

/** Takes cash at the till: a Capture of a details bag (what `new Capture({...})` carries). */
class TillCaptureAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Capture && request.model instanceof ArrayObject
  }

  execute (request: Capture): void {
    (request.model as ArrayObject).set('paid', true)
  }
}

/** Status actions call markX(); they never set `value` themselves. */
class TillStatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof GetHumanStatus && request.model instanceof ArrayObject
  }

  execute (request: GetHumanStatus): void {
    const details = request.model as ArrayObject
    if (details.get('paid') === true) request.markCaptured()
    else request.markNew()
  }
}

export async function main (): Promise<{ till: string, plain: Record<string, unknown>, wrapped: boolean, cash: string }> {
  const paywire = new PaywireBuilder()
    // A gateway object built by hand...
    .addGateway('till', new Gateway().addAction(new TillCaptureAction()).addAction(new TillStatusAction()))
    // ...or one a factory builds from options.
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  try {
    // A plain object is wrapped in an ArrayObject that writes through to it.
    const plain: Record<string, unknown> = { amount: 1250 }
    const capture = new Capture(plain)
    const wrapped = capture.model instanceof ArrayObject
    await paywire.getGateway('till').execute(capture)
    const status = new GetHumanStatus(plain)
    await paywire.getGateway('till').execute(status)

    // A Payment: CapturePaymentAction converts it to the gateway's details, then captures those.
    const payment = Object.assign(new Payment(), { number: 'ORDER-1', totalAmount: 1250, currencyCode: 'EUR' })
    payment.details = { paid: true }
    await paywire.getGateway('cash').execute(new Capture(payment))
    const cash = new GetHumanStatus(payment)
    await paywire.getGateway('cash').execute(cash)
    return { till: status.value, plain, wrapped, cash: cash.value }
  } finally {
    await paywire.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
