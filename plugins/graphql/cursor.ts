import { errorCodes } from '../core/engine/index.ts'
import { withFields } from './errors.ts'
import { fingerprint } from './idempotency.ts'

/*
 * Cursors are opaque to clients: base64url JSON of the position after the item (storages
 * page by offset, oldest first, so new payments never shift earlier pages) and of the
 * filter they belong to, so a cursor cannot be replayed against another filter.
 */

interface CursorData {
  o: number
  f: string
}

export function filterKey (filter: object): string {
  return fingerprint(filter).slice(0, 16)
}

export function encodeCursor (offset: number, filter: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: filter } satisfies CursorData)).toString('base64url')
}

/** The offset a cursor points at; a typed InvalidInput for anything that is not a cursor of this filter. */
export function decodeCursor (cursor: string | undefined, filter: string): number {
  if (cursor === undefined) return 0
  let data: Partial<CursorData> | null = null
  try {
    data = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    // Reported below, like any cursor we did not make.
  }
  if (data === null || typeof data !== 'object' || !Number.isSafeInteger(data.o) || (data.o as number) < 0 || data.f !== filter) {
    throw withFields(new errorCodes.PAYWIRE_ERR_VALIDATION('after', 'is not a cursor of this query (filters must stay the same between pages)'),
      { field: 'after' })
  }
  return data.o as number
}
