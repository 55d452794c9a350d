import type { Context } from './context.ts'

/**
 * Extensions watch (and may steer) every execute: before an action is chosen, before it
 * runs, and after it ran, replied or failed. Every hook is optional and may be async.
 */
export interface Extension {
  onPreExecute? (context: Context): Promise<void> | void
  onExecute? (context: Context): Promise<void> | void
  onPostExecute? (context: Context): Promise<void> | void
}

/** Marker: an extension with `prepend: true` runs before all others. */
export interface PrependExtension {
  readonly prepend: true
}

export function isExtension (value: unknown): value is Extension {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Record<string, unknown>
  return ['onPreExecute', 'onExecute', 'onPostExecute'].some((hook) => typeof candidate[hook] === 'function')
}
