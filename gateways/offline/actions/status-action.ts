import { StatusFromReaderAction } from '../../../plugins/core/engine/index.ts'
import { OfflineStateReader } from '../state-reader.ts'

/**
 * An offline payment's status and amounts, from OfflineStateReader (its one statement of
 * them). The factory does not list it: the core factory answers status requests from the
 * registered reader; this class is for gateways assembled by hand.
 */
export class StatusAction extends StatusFromReaderAction {
  constructor () {
    super(new OfflineStateReader())
  }
}
