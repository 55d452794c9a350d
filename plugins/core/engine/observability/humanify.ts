import { HttpRedirect } from '../requests/replies.ts'

export function humanifyValue (value: unknown): string {
  if (value === null) return 'null'
  // `||`: an anonymous class has an empty name.
  if (typeof value === 'object') return value.constructor?.name || 'Object'
  return typeof value
}

/** "Capture{model: Identity}", the shape Payum users know from its error messages. */
export function humanifyRequest (request: unknown): string {
  const name = humanifyValue(request)
  if (request instanceof HttpRedirect) return `${name}{url: ${request.url}}`
  if (request !== null && typeof request === 'object' && 'model' in request) {
    return `${name}{model: ${humanifyValue((request as { model: unknown }).model)}}`
  }
  return name
}
