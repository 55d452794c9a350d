/** ISO 4217 lookup by alphabetic (EUR) or numeric (978) code. */
export class GetCurrency {
  readonly code: string | number
  alpha3 = ''
  numeric = ''
  name = ''
  /** Digits after the decimal separator: 2 for EUR, 0 for JPY, 3 for BHD. */
  exp = 0
  countries: string[] = []

  constructor (code: string | number) {
    this.code = code
  }
}
