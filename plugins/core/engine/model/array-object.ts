import { PAYWIRE_ERR_REQUIRED_OPTION } from '../errors.ts'

export type Details = Record<string, unknown>

/**
 * A details bag: the gateway's own view of a payment. It wraps a plain record without
 * copying it, so changes made by actions write through to the record the payment holds.
 *
 * The `local` key is the conventional place for data that must never reach a gateway
 * (shop-side notes, flags): `toUnsafeArrayWithoutLocal()` drops it.
 */
export class ArrayObject {
  data: Details

  constructor (data: Details = {}) {
    this.data = data
  }

  get<T = unknown> (key: string, fallback?: T): T {
    const value = this.data[key]
    return (value === undefined || value === null ? fallback : value) as T
  }

  set (key: string, value: unknown): this {
    this.data[key] = value
    return this
  }

  has (key: string): boolean {
    return this.data[key] !== undefined && this.data[key] !== null
  }

  delete (key: string): this {
    delete this.data[key]
    return this
  }

  /** Fills only the keys that are unset, so values a user gave always win over defaults. */
  defaults (values: Details): this {
    for (const [key, value] of Object.entries(values)) {
      if (!this.has(key)) this.data[key] = value
    }
    return this
  }

  replace (values: Details): this {
    Object.assign(this.data, values)
    return this
  }

  /** The nested record under `key`, as an ArrayObject writing through to it. */
  getArray (key: string): ArrayObject {
    const value = this.data[key]
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return new ArrayObject(value as Details)
    }
    const nested: Details = {}
    this.data[key] = nested
    return new ArrayObject(nested)
  }

  /**
   * Throws a coded error naming the first empty key. `context` names the owner (a gateway
   * name) so the message says where to fix it; values are never echoed.
   */
  validateNotEmpty (keys: string[], context = 'config'): void {
    for (const key of keys) {
      const value = this.data[key]
      if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) {
        throw new PAYWIRE_ERR_REQUIRED_OPTION(context, key)
      }
    }
  }

  toUnsafeArray (): Details {
    return { ...this.data }
  }

  toUnsafeArrayWithoutLocal (): Details {
    const { local: _local, ...rest } = this.data
    return rest
  }
}

/**
 * A details bag stored on its own (the "raw details" flow: capture without a Payment).
 * A separate class so that the ArrayObject wrappers actions create around a payment's
 * details are never mistaken for records to store.
 */
export class DetailsRecord extends ArrayObject {
  id?: string
}
