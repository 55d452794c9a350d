import { ArrayObject } from '../../model/array-object.ts'
import { Generic, isPlainRecord } from '../../requests/generic.ts'
import { GatewayAwareAction } from './action.ts'

interface DetailsAggregate {
  details: unknown
}

function hasDetails (model: unknown): model is DetailsAggregate {
  return typeof model === 'object' && model !== null && !(model instanceof ArrayObject) && 'details' in model &&
    (model as DetailsAggregate).details !== undefined && (model as DetailsAggregate).details !== null
}

/**
 * Unwraps a model that aggregates details (Payment, Payout, Token) and runs the same
 * request on the details: this is how a Token becomes its Identity, then (through the
 * storage extension) the stored model. Details changed by the gateway are written back,
 * also when it replied or failed.
 */
export class ExecuteSameRequestWithModelDetailsAction extends GatewayAwareAction {
  supports (request: unknown): boolean {
    return request instanceof Generic && hasDetails(request.model)
  }

  async execute (request: Generic): Promise<void> {
    const model = request.model as DetailsAggregate
    const bag = isPlainRecord(model.details) ? new ArrayObject(model.details) : undefined
    request.model = bag ?? model.details
    try {
      await this.gateway.execute(request)
    } finally {
      // Actions may replace the bag's record wholesale; keep what they left.
      if (bag !== undefined) model.details = bag.data
    }
  }
}
