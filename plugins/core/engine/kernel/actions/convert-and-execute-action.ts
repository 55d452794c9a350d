import { assertMinorUnits, getCurrency } from '../../money.ts'
import { ArrayObject } from '../../model/array-object.ts'
import { Payment } from '../../model/payment.ts'
import { Payout as PayoutModel } from '../../model/payout.ts'
import { Convert } from '../../requests/convert.ts'
import { Authorize, Capture, Payout, type Generic } from '../../requests/generic.ts'
import { GetHumanStatus } from '../../requests/get-status.ts'
import { GatewayAwareAction } from './action.ts'

type Convertible = Payment | PayoutModel

/**
 * The generic half of capture/authorize/payout: a new payment (or payout) is validated
 * and converted into the gateway's details once, then the same request runs on the
 * details. Details are written back even when the gateway replies (a redirect) or fails,
 * so the storage extension persists what the gateway already did.
 */
abstract class ConvertAndExecuteAction extends GatewayAwareAction {
  protected abstract readonly requestClass: abstract new (...args: any[]) => Generic
  protected abstract readonly modelClass: abstract new (...args: any[]) => Convertible

  supports (request: unknown): boolean {
    return request instanceof this.requestClass && request.model instanceof this.modelClass
  }

  async execute (request: Generic): Promise<void> {
    const model = request.model as Convertible
    const status = new GetHumanStatus(model)
    await this.gateway.execute(status)
    if (status.isNew()) {
      assertMinorUnits(model.totalAmount)
      getCurrency(model.currencyCode)
      const convert = new Convert(model, 'array', request.token)
      await this.gateway.execute(convert)
      model.details = convert.result ?? model.details
    }
    const bag = new ArrayObject(model.details)
    request.model = bag
    try {
      await this.gateway.execute(request)
    } finally {
      model.details = bag.data
    }
  }
}

export class CapturePaymentAction extends ConvertAndExecuteAction {
  protected readonly requestClass = Capture
  protected readonly modelClass = Payment
}

export class AuthorizePaymentAction extends ConvertAndExecuteAction {
  protected readonly requestClass = Authorize
  protected readonly modelClass = Payment
}

export class PayoutPayoutAction extends ConvertAndExecuteAction {
  protected readonly requestClass = Payout
  protected readonly modelClass = PayoutModel
}
