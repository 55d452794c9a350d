import { PAYWIRE_ERR_INVALID_OPTION } from './errors.ts'

/*
 * "Did you mean" for names a user typed: gateway factories, plugin options. A misspelt
 * name would otherwise be dropped without a word, or fail far from where it was written.
 */

/** Levenshtein distance. */
export function distance (a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
    }
    previous = current
  }
  return previous[b.length] as number
}

/** The known name nearest to `name` (ignoring case), when it is near enough to be a typo of it. */
export function closestName (name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase()
  const limit = Math.max(2, Math.floor(wanted.length / 3))
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    const d = distance(wanted, candidate.toLowerCase())
    if (d <= limit && d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** " Did you mean X?" or ''. */
export function didYouMean (name: string, known: readonly string[]): string {
  const near = closestName(name, known)
  return near === undefined ? '' : ` Did you mean ${near}?`
}

/** What Fastify's register() itself reads from a plugin's options. */
export const REGISTER_OPTION_NAMES: readonly string[] = ['logLevel', 'logSerializers']

/**
 * Refuses a key of `options` that `plugin` does not have (PAYWIRE_ERR_INVALID_OPTION, with
 * the nearest option name); `path` prefixes nested options ("idempotency.").
 */
export function refuseUnknownOptions (plugin: string, options: object, known: readonly string[], path = ''): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name) || (path === '' && REGISTER_OPTION_NAMES.includes(name))) continue
    const near = closestName(name, known)
    const what = path === '' ? `an option of the ${plugin} plugin` : `an option of ${plugin}'s ${path.slice(0, -1)}`
    throw new PAYWIRE_ERR_INVALID_OPTION(`${path}${name}`, `is not ${what}${near === undefined ? '' : ` (did you mean ${near}?)`}; its options: ${known.join(', ')}`)
  }
}

/**
 * A schema validator's message as the tail of a sentence ("expected string to match
 * '^(/[A-Za-z0-9._~-]+)+$'"): only the first letter is lowered, since the rest may quote a
 * pattern or a value whose case is its meaning.
 */
export function asSentenceTail (message: string): string {
  return message.charAt(0).toLowerCase() + message.slice(1)
}
