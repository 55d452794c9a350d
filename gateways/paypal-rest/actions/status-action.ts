import { StatusFromReaderAction } from '../../../plugins/core/engine/index.ts'
import { PaypalStateReader } from '../state-reader.ts'

/**
 * The payment's status from PayPal's payment and sale states (table in the README) and the
 * amounts that moved, from PaypalStateReader (its one statement of them). The factory does
 * not list it: the core factory answers status requests from the registered reader.
 */
export class StatusAction extends StatusFromReaderAction {
  constructor () {
    super(new PaypalStateReader())
  }
}
