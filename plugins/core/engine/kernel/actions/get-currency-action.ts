import { getCurrency } from '../../money.ts'
import { GetCurrency } from '../../requests/get-currency.ts'
import type { Action } from './action.ts'

export class GetCurrencyAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof GetCurrency
  }

  execute (request: GetCurrency): void {
    const currency = getCurrency(request.code)
    request.alpha3 = currency.alpha3
    request.numeric = currency.numeric
    request.name = currency.name
    request.exp = currency.exp
    request.countries = currency.countries
  }
}
