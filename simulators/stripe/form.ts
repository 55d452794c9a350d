/*
 * Stripe's form encoding: `application/x-www-form-urlencoded` with nested brackets,
 * `metadata[order]=1`, `line_items[0][price_data][currency]=eur`, `expand[]=latest_charge`
 * (https://docs.stripe.com/api, "accepts form-encoded request bodies"; the official SDKs encode
 * nested parameters this way). Query strings of GET calls use the same syntax
 * (`created[gte]=…`, `types[]=…`). A small parser of our own: the SDK's encoding is regular, and
 * no dependency is needed for ~50 lines.
 */

export type FormValue = string | FormValue[] | { [key: string]: FormValue }
export type FormObject = { [key: string]: FormValue }

/** Thrown for a key whose brackets do not close, or that mixes list and object syntax. */
export class FormSyntaxError extends Error {
  readonly key: string
  constructor (key: string) {
    super(`Invalid form parameter: ${key}`)
    this.name = 'FormSyntaxError'
    this.key = key
  }
}

function segments (key: string): string[] {
  const open = key.indexOf('[')
  if (open === -1) return [key]
  const parts = [key.slice(0, open)]
  const rest = key.slice(open)
  const pattern = /\[([^[\]]*)\]/gy
  let consumed = 0
  for (let match = pattern.exec(rest); match !== null; match = pattern.exec(rest)) {
    parts.push(match[1] as string)
    consumed = pattern.lastIndex
  }
  if (consumed !== rest.length || parts[0] === '') throw new FormSyntaxError(key)
  return parts
}

function assign (target: FormObject | FormValue[], path: string[], value: string, key: string): void {
  const [head, ...tail] = path as [string, ...string[]]
  if (Array.isArray(target)) {
    if (head !== '' && !/^\d+$/.test(head)) throw new FormSyntaxError(key)
    const index = head === '' ? target.length : Number(head)
    if (tail.length === 0) {
      target[index] = value
      return
    }
    const child = target[index] ?? (tail[0] === '' || /^\d+$/.test(tail[0] as string) ? [] : {})
    if (typeof child === 'string') throw new FormSyntaxError(key)
    target[index] = child
    assign(child, tail, value, key)
    return
  }
  if (head === '') throw new FormSyntaxError(key)
  if (tail.length === 0) {
    if (target[head] !== undefined && typeof target[head] !== 'string') throw new FormSyntaxError(key)
    target[head] = value
    return
  }
  const child = target[head] ?? (tail[0] === '' || /^\d+$/.test(tail[0] as string) ? [] : {})
  if (typeof child === 'string') throw new FormSyntaxError(key)
  target[head] = child
  assign(child, tail, value, key)
}

/** Parses `a[b][0]=c&d[]=e` into `{ a: { b: ['c'] }, d: ['e'] }`; arrays are compacted in index order. */
export function parseForm (text: string): FormObject {
  const result: FormObject = {}
  for (const [key, value] of new URLSearchParams(text)) assign(result, segments(key), value, key)
  return compact(result) as FormObject
}

function compact (value: FormValue): FormValue {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.filter((item) => item !== undefined).map(compact)
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, compact(item)]))
}
